package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"contend/hostbench"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

// newMachine is the machine calibrate measures: this one, except in tests.
var newMachine = func() (hostbench.Machine, error) { return hostbench.NewHost() }

func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("calibrate", &o, stderr, "text", "csv", "json")
	quick := fs.Bool("quick", false, "fewer, shorter samples (under a minute)")
	check := fs.Bool("check", false, "simulate scenario "+hostbench.Scenario+" on the measured profile and compare every figure")
	from := fs.String("from", "", "refit and recheck the raw figures of a stored run (`FILE`.json, written by calibrate --format json) instead of measuring; implies --check")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("calibrate takes no scenario (got %s); it measures this machine", fs.Arg(0))
	}
	var (
		figs []hostbench.Figure
		topo hostbench.Topology
		prov hostbench.Provenance
		err  error
	)
	if *from != "" {
		if *quick {
			return fmt.Errorf("--quick and --from: a stored run is not measured again; drop --quick")
		}
		*check = true
		data, err := os.ReadFile(*from)
		if err != nil {
			return err
		}
		if figs, topo, prov, err = hostbench.ReadRecord(*from, data); err != nil {
			return err
		}
	} else {
		progress := stderr
		if o.quiet {
			progress = io.Discard
		}
		if figs, topo, prov, err = measureHost(*quick, progress); err != nil {
			return err
		}
		id := hostbench.IdentityOf(prov, topo)
		if runs := hostbench.Archived(id); len(runs) > 0 {
			fmt.Fprintf(stderr, "calibrate: this machine (%s) is archived: %s\n", id, archivedRuns(runs))
		} else {
			fmt.Fprintf(stderr, "calibrate: this machine (%s) is not in the archive of measured hosts: run calibrate --check --format json under chrt -f 1 and add its output to hostbench/testdata/hosts/, with its line in hostbench/hosts.txt\n", id)
		}
	}
	if !o.quiet {
		fmt.Fprintln(stderr, "calibrate: fitting the profile to the calibrate figures")
	}
	cal, err := hostbench.Calibrate(figs, topo, prov, func(s *scenarios.Scenario) scenarios.Runner {
		return sweep.Runner(s, o.jobs, nil)
	})
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeAtomic(o.out, []byte(cal.Profile)); err != nil {
			return err
		}
		fmt.Fprint(stderr, report.TermText(fmt.Sprintf("calibrate: wrote %s; simulate on it with --profile %s\n", o.out, o.out)))
	}
	var buf bytes.Buffer
	c := report.Calibration{Figures: figs, Result: cal, Provenance: prov, Check: *check, Profile: o.out == ""}
	if err := report.RenderCalibration(&buf, o.format, c); err != nil {
		return err
	}
	// To stdout even with -o, which took the profile.
	return emit(&options{format: o.format}, stdout, &buf)
}

// measureHost runs calibrate's loops on this machine.
func measureHost(quick bool, progress io.Writer) ([]hostbench.Figure, hostbench.Topology, hostbench.Provenance, error) {
	host, err := newMachine()
	if err != nil {
		return nil, hostbench.Topology{}, hostbench.Provenance{}, err
	}
	effort, name := hostbench.Full, "full"
	if quick {
		effort, name = hostbench.Quick, "quick"
	}
	prov := hostbench.ReadProvenance(os.DirFS("/"), time.Now())
	prov.Effort = fmt.Sprintf("%s: %d samples of about %v per figure", name, effort.Samples, effort.Sample)
	figs, err := hostbench.MeasureAll(host, hostbench.Plan(host.Topology(), host), effort, progress)
	return figs, host.Topology(), prov, err
}

// archivedRuns says which archived records a machine has, a set of runs
// of one session in a phrase: "xeon-f6m167s8-kvm-2vcpu-2026-12-02 runs 1-31
// (31 files in hostbench/testdata/hosts/)", not thirty-one names.
func archivedRuns(files []string) string {
	type set struct {
		name string
		runs []int
	}
	var sets []*set
	by := map[string]*set{}
	var others []string
	for _, f := range files {
		base := strings.TrimSuffix(f, ".json")
		i := strings.LastIndex(base, "-run")
		n := 0
		if i >= 0 {
			n, _ = strconv.Atoi(base[i+len("-run"):])
		}
		if n <= 0 {
			others = append(others, f)
			continue
		}
		name := base[:i]
		if by[name] == nil {
			by[name] = &set{name: name}
			sets = append(sets, by[name])
		}
		by[name].runs = append(by[name].runs, n)
	}
	var parts []string
	for _, st := range sets {
		sort.Ints(st.runs)
		var spans []string
		for i := 0; i < len(st.runs); {
			j := i
			for j+1 < len(st.runs) && st.runs[j+1] == st.runs[j]+1 {
				j++
			}
			if j > i {
				spans = append(spans, fmt.Sprintf("%d-%d", st.runs[i], st.runs[j]))
			} else {
				spans = append(spans, fmt.Sprint(st.runs[i]))
			}
			i = j + 1
		}
		word := "runs"
		if len(st.runs) == 1 {
			word = "run"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", st.name, word, strings.Join(spans, ", ")))
	}
	parts = append(parts, others...)
	return fmt.Sprintf("%s (%d files in hostbench/testdata/hosts/)", strings.Join(parts, "; "), len(files))
}
