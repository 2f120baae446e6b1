package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"contend/scenarios"
	"contend/sweep"
)

func cmdList(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("list", &o, stderr, "text")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("list takes no scenario names (got %s); to see one, use contend run %s", strings.Join(fs.Args(), " "), fs.Arg(0))
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSERIES\tPROFILE\tVARIANTS")
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			return err
		}
		for _, se := range s.Series {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, se.Name, se.Profile, strings.Join(se.Variants, ", "))
		}
	}
	tw.Flush()
	return emit(&o, stdout, &buf)
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	return runTables("run", false, args, stdout, stderr)
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	return runTables("sweep", true, args, stdout, stderr)
}

func runTables(name string, axes bool, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags(name, &o, stderr, "text", "csv", "json")
	profileFlag(fs, &o)
	seriesName := fs.String("series", "", "only this series")
	samples := samplesFlag(fs, "every value", "")
	var sh shardFlags
	if axes {
		sh.declare(fs)
	}
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name a scenario: contend %s ingress (see contend list)", name)
	}
	if err := checkSamples(*samples); err != nil {
		return err
	}
	slice, err := sh.slice()
	if err != nil {
		return err
	}
	if slice != nil && *samples > 0 {
		return fmt.Errorf("--uncertainty with --shard: a shard holds one prediction per point; sample the spread without --shard")
	}
	p := &sweep.Plan{}
	for _, arg := range fs.Args() {
		s, err := load(arg, &o)
		if err != nil {
			return err
		}
		if err := p.Add(s, seedOf(&o, s), *seriesName, axes); err != nil {
			return err
		}
	}
	values, err := p.Simulate(slice, o.jobs, progress(&o, name))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if slice != nil {
		err = writeJSON(&buf, p.Shard(*slice, o.format, o.seed, values))
	} else {
		tables := p.Tables(values)
		if *samples > 0 {
			ivs, err := p.Intervals(*samples, o.jobs, progress(&o, name))
			if err != nil {
				return err
			}
			for i := range tables {
				tables[i].Intervals = ivs[i]
			}
		}
		err = renderTables(&buf, o.format, tables)
	}
	if err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}

// renderTables prints tables in format; sweep and merge share it, so that
// merged shards print the bytes one sweep would.
func renderTables(buf *bytes.Buffer, format string, tables []sweep.Table) error {
	switch format {
	case "json":
		return writeJSON(buf, tables)
	case "csv":
		w := newCSV(buf)
		head := []string{"series", "profile", "variant", "axis", "x", "metric", "unit", "value"}
		sampled := len(tables) > 0 && tables[0].Intervals != nil
		if sampled {
			head = append(head, "median", "low_5pct", "high_95pct")
		}
		w.Write(append(head, "note"))
		for _, t := range tables {
			for i, x := range t.X {
				for j, v := range t.Variants {
					rec := []string{t.Series, t.Profile, v, t.Axis, num(x), t.Metric, t.Unit, num(t.Values[i][j])}
					if sampled {
						b := t.Intervals[i][j]
						rec = append(rec, num(b.Median), num(b.Low), num(b.High))
					}
					w.Write(append(rec, t.NoteAt(i, j)))
				}
			}
		}
		w.Flush()
		return w.Error()
	}
	for i, t := range tables {
		if i > 0 {
			buf.WriteString("\n")
		}
		writeTable(buf, t)
	}
	return nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// writeTable lays a table out the way seed 004's commit message does.
func writeTable(buf *bytes.Buffer, t sweep.Table) {
	fmt.Fprintf(buf, "%s (profile %s): %s, %s\n", t.Series, t.Profile, t.Metric, t.Unit)
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", t.Axis)
	for _, v := range t.Variants {
		fmt.Fprintf(tw, "%s\t", v)
	}
	for _, v := range t.Variants[min(1, len(t.Variants)):] {
		fmt.Fprintf(tw, "%s Δ%%\t", v)
	}
	fmt.Fprintln(tw)
	for i, x := range t.X {
		fmt.Fprintf(tw, "%s\t", num(x))
		for _, v := range t.Values[i] {
			fmt.Fprintf(tw, "%s\t", fixed(v))
		}
		for _, v := range t.Values[i][min(1, len(t.Values[i])):] {
			base := t.Values[i][0]
			if base == 0 {
				fmt.Fprint(tw, "-\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t", signed(100*(v-base)/base, 0))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if t.Intervals != nil {
		writeIntervals(buf, t)
	}
	for i, x := range t.X {
		for j, v := range t.Variants {
			if n := t.NoteAt(i, j); n != "" {
				fmt.Fprintf(buf, "  %s=%s %s: %s\n", t.Axis, num(x), v, n)
			}
		}
	}
	if len(t.Unmeasured) > 0 && len(t.Unmeasured) < len(t.Variants) {
		fmt.Fprintf(buf, "  no published %s for %s: predictions only\n", t.Metric, strings.Join(t.Unmeasured, ", "))
	}
}

// writeIntervals lays out a table's medians and 90% intervals as the table
// itself is laid out.
func writeIntervals(buf *bytes.Buffer, t sweep.Table) {
	fmt.Fprintf(buf, "  median and 90%% interval over the profile's spread:\n")
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", t.Axis)
	for _, v := range t.Variants {
		fmt.Fprintf(tw, "%s\t", v)
	}
	fmt.Fprintln(tw)
	for i, x := range t.X {
		fmt.Fprintf(tw, "%s\t", num(x))
		for _, b := range t.Intervals[i] {
			fmt.Fprintf(tw, "%s (%s – %s)\t", fixed(b.Median), fixed(b.Low), fixed(b.High))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// signed prints v with a sign and prec decimals; a value that rounds to zero
// prints as +0, never -0, so a calibrated point does not look like a miss.
func signed(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// fixed prints with precision that suits the magnitude.
func fixed(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("validate", &o, stderr, "text", "csv", "json")
	profileFlag(fs, &o)
	samples := samplesFlag(fs, "each figure", ", and whether the measured figure is inside")
	onlyChanges := fs.Bool("changes", false, "print only what each variant changes against its series' base (the before), measured and predicted")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if err := checkSamples(*samples); err != nil {
		return err
	}
	if *onlyChanges && *samples > 0 {
		return fmt.Errorf("--changes with --uncertainty: the changes have no intervals; drop one of them")
	}
	var ivs []sweep.Interval
	var changes []scenarios.Change
	names := fs.Args()
	if len(names) == 0 {
		names = scenarios.BuiltinNames()
	}
	var rows []scenarios.Row
	type seriesInfo struct {
		scenario string
		se       *scenarios.Series
	}
	var infos []seriesInfo
	prog := progress(&o, "validate")
	for _, arg := range names {
		s, err := load(arg, &o)
		if err != nil {
			return err
		}
		for _, se := range s.Series {
			r, err := s.Predict(se, seedOf(&o, s), nil, sweep.Runner(s, o.jobs, prog))
			if err != nil {
				return err
			}
			rows = append(rows, r...)
			changes = append(changes, scenarios.Changes(se, r)...)
			infos = append(infos, seriesInfo{s.Name, se})
			if *samples > 0 {
				iv, err := sweep.Intervals(s, se, seedOf(&o, s), *samples, sweep.Runner(s, o.jobs, prog))
				if err != nil {
					return err
				}
				ivs = append(ivs, iv...)
			}
		}
	}
	var buf bytes.Buffer
	if *onlyChanges {
		if err := writeChanges(&buf, o.format, changes); err != nil {
			return err
		}
		return emit(&o, stdout, &buf)
	}
	switch o.format {
	case "json":
		if rows == nil {
			rows = []scenarios.Row{}
		}
		var v any = rows
		if *samples > 0 {
			v = withIntervals(rows, ivs)
		}
		if err := writeJSON(&buf, v); err != nil {
			return err
		}
	case "csv":
		writeRowsCSV(&buf, rows, ivs)
	default:
		for _, in := range infos {
			writeSeriesHeader(&buf, in.scenario, in.se)
		}
		buf.WriteString("\n")
		writeRows(&buf, rows, ivs)
		if len(changes) > 0 {
			buf.WriteString("\n")
			writeChanges(&buf, "text", changes)
		}
	}
	return emit(&o, stdout, &buf)
}

// writeChanges writes what each variant changes against its series' base:
// the change measured, the change predicted, and the difference in points.
func writeChanges(buf *bytes.Buffer, format string, changes []scenarios.Change) error {
	switch format {
	case "json":
		if changes == nil {
			changes = []scenarios.Change{}
		}
		return writeJSON(buf, changes)
	case "csv":
		w := newCSV(buf)
		w.Write([]string{"scenario", "series", "variant", "base", "axis", "x", "metric", "measured_pct", "predicted_pct"})
		f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		for _, c := range changes {
			w.Write([]string{c.Scenario, c.Series, c.Variant, c.Base, c.Axis, num(c.X), c.Metric, f2(c.MeasuredPct), f2(c.PredictedPct)})
		}
		w.Flush()
		return nil
	}
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANGE\tAGAINST\tSERIES\tAXIS\tX\tMETRIC\tMEASURED\tPREDICTED\tMISSED BY")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s%%\t%s%%\t%s points\n", c.Variant, c.Base, c.Series, c.Axis, num(c.X), c.Metric,
			signed(c.MeasuredPct, 1), signed(c.PredictedPct, 1), signed(c.PredictedPct-c.MeasuredPct, 1))
	}
	return tw.Flush()
}

// writeRowsCSV writes reference points and predictions with validate's columns.
// With intervals (validate --uncertainty), each row also has its median, its
// 90% interval and whether the measured figure falls inside.
func writeRowsCSV(buf *bytes.Buffer, rows []scenarios.Row, ivs []sweep.Interval) {
	w := newCSV(buf)
	head := []string{"scenario", "variant", "axis", "x", "metric", "unit", "measured", "predicted", "error_pct", "role"}
	if ivs != nil {
		head = append(head, "median", "low_5pct", "high_95pct", "inside")
	}
	w.Write(head)
	f4 := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for i, r := range rows {
		rec := []string{r.Scenario, r.Variant, r.Axis, num(r.X), r.Metric, r.Unit, num(r.Measured),
			f4(r.Predicted), strconv.FormatFloat(r.ErrorPct, 'f', 2, 64), r.Role}
		if ivs != nil {
			rec = append(rec, f4(ivs[i].Median), f4(ivs[i].Low), f4(ivs[i].High), strconv.FormatBool(ivs[i].Inside))
		}
		w.Write(rec)
	}
	w.Flush()
}

// writeSeriesHeader says what a series fits and to which points.
func writeSeriesHeader(buf *bytes.Buffer, scenario string, se *scenarios.Series) {
	cal := []string{}
	for _, r := range se.Refs {
		if r.Role == "calibrate" {
			cal = append(cal, fmt.Sprintf("%s %s=%v %s", r.Variant, r.Axis, r.X, r.Metric))
		}
	}
	fmt.Fprintf(buf, "series %s (%s, profile %s)\n  free parameters (%d): %s\n  calibrate points (%d): %s\n",
		se.Name, scenario, se.Profile, len(se.Free), strings.Join(se.Free, ", "), len(cal), strings.Join(cal, "; "))
}

// writeRows prints reference points against predictions, and the largest
// error of each role.
func writeRows(buf *bytes.Buffer, rows []scenarios.Row, ivs []sweep.Interval) {
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "SCENARIO\tVARIANT\tAXIS\tX\tMETRIC\tMEASURED\tPREDICTED\tERROR\tROLE")
	if ivs != nil {
		fmt.Fprint(tw, "\tMEDIAN\t90% INTERVAL\tINSIDE")
	}
	fmt.Fprintln(tw)
	worst := map[string]float64{}
	inside := 0
	for i, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s %s\t%s %s\t%s%%\t%s", r.Scenario, r.Variant, r.Axis, num(r.X), r.Metric,
			fixed(r.Measured), r.Unit, fixed(r.Predicted), r.Unit, signed(r.ErrorPct, 1), r.Role)
		if ivs != nil {
			iv := ivs[i]
			fmt.Fprintf(tw, "\t%s %s\t%s – %s %s\t%s", fixed(iv.Median), r.Unit, fixed(iv.Low), fixed(iv.High), r.Unit, map[bool]string{true: "yes", false: "no"}[iv.Inside])
			if iv.Inside {
				inside++
			}
		}
		fmt.Fprintln(tw)
		worst[r.Role] = math.Max(worst[r.Role], math.Abs(r.ErrorPct))
	}

	tw.Flush()
	roles := make([]string, 0, len(worst))
	for k := range worst {
		roles = append(roles, k)
	}
	sort.Strings(roles)
	for _, role := range roles {
		fmt.Fprintf(buf, "largest %s error: %.1f%%\n", role, worst[role])
	}
	if ivs != nil {
		fmt.Fprintf(buf, "measured figures inside their 90%% interval: %d of %d\n", inside, len(rows))
	}
	for _, r := range rows {
		if r.Note != "" {
			fmt.Fprintf(buf, "note: %s %s %s=%s %s: %s\n", r.Scenario, r.Variant, r.Axis, num(r.X), r.Metric, r.Note)
		}
	}
}

func cmdFit(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("fit", &o, stderr, "text")
	profileFlag(fs, &o)
	seriesName := fs.String("series", "", "only this series")
	write := fs.String("write", "", "write a copy of the scenario with the fitted values to `FILE` (never the input)")
	scan := fs.Int("scan", 0, "with one free parameter, also try `N` values over its bounds and warn of other values that meet the calibrate points, or where the model jumps across them (0: do not)")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one scenario: contend fit ingress [--series ingress-bare]")
	}
	if err := checkPath("--write", *write); err != nil {
		return err
	}
	if err := o.files.write("--write", *write); err != nil {
		return err
	}
	if *scan == 1 {
		return fmt.Errorf("--scan %d: give 2 to 10000 values to try (100 or more to find a narrow window), or 0 for none", *scan)
	}
	s, err := load(fs.Arg(0), &o)
	if err != nil {
		return err
	}
	var src []byte
	if *write != "" {
		if src, err = scenarioSource(fs.Arg(0)); err != nil {
			return err
		}
	}
	prog := progress(&o, "fit")
	var buf bytes.Buffer
	fitted := 0
	for _, se := range s.Series {
		if *seriesName != "" && se.Name != *seriesName {
			continue
		}
		if *seriesName == "" && (len(se.Free) == 0 || !slices.ContainsFunc(se.Refs, func(r scenarios.Reference) bool { return r.Role == "calibrate" })) {
			fmt.Fprintf(&buf, "series %s: nothing to fit (no free parameters or no calibrate points): every point is a prediction\n", se.Name)
			continue
		}
		fitted++
		best, rows, err := s.Fit(se, seedOf(&o, s), sweep.Runner(s, o.jobs, prog))
		if err != nil {
			return err
		}
		fmt.Fprintf(&buf, "series %s: fitted to %d calibrate points\n", se.Name, countRole(rows, "calibrate"))
		for _, f := range se.Free {
			fmt.Fprintf(&buf, "  %s = %.4g\n", f, best[f])
		}
		for _, r := range rows {
			fmt.Fprintf(&buf, "  %-9s %-16s %s=%s %-32s measured %s predicted %s (%s%%)\n", r.Role, r.Variant, r.Axis, num(r.X), r.Metric, fixed(r.Measured), fixed(r.Predicted), signed(r.ErrorPct, 1))
		}
		others, err := s.OtherFits(se, seedOf(&o, s), best, *scan, sweep.Runner(s, o.jobs, prog))
		if err != nil {
			return err
		}
		for _, x := range others {
			if x.Root {
				fmt.Fprintf(&buf, "  warning: %s = %.4g meets the calibrate points too: the model has more than one regime here; the other figures, or what the benchmark does, say which value is meant\n", se.Free[0], x.Value)
			} else {
				fmt.Fprintf(&buf, "  warning: at %s = %.4g the model jumps from %s%% to %s%% on the calibrate points: a border between regimes; check which side the measurement is on (the other figures, or what the benchmark does)\n", se.Free[0], x.Value, signed(x.From, 1), signed(x.To, 1))
			}
		}
		if src != nil {
			if src, err = s.WriteFitted(src, se, best, rows); err != nil {
				return err
			}
		}
	}
	if fitted == 0 && *seriesName == "" && len(s.Series) > 0 {
		return fmt.Errorf("nothing to fit: no series of %s has both free parameters and calibrate points", s.Name)
	}
	if fitted == 0 {
		return fmt.Errorf("nothing to fit: %s has no [[series]]%s; a series names the free parameters and calibrate points", s.Name, seriesNamed(*seriesName))
	}
	if src != nil {
		if err := writeFlagFile("--write", *write, src); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "fit: wrote %s\n", termText(*write))
	}
	return emit(&o, stdout, &buf)
}

// scenarioSource returns the text of the scenario arg names.
func scenarioSource(arg string) ([]byte, error) {
	if isBuiltin(arg) {
		return fs.ReadFile(scenarios.Builtin(), arg+".toml")
	}
	return os.ReadFile(arg)
}

// seriesNamed says which series was asked for, if one was.
func seriesNamed(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" named %q", name)
}

func countRole(rows []scenarios.Row, role string) int {
	n := 0
	for _, r := range rows {
		if r.Role == role {
			n++
		}
	}
	return n
}
