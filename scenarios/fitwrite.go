package scenarios

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// WriteFitted returns a copy of a scenario file's text, src, with the fitted
// values best of series se put where the file sets them: profile fields in
// the series' [profile.NAME], params in the series' own [series.params] when
// it overrides them, else in [params]. Each changed line keeps the old value
// and the calibrate residuals in a comment. A value the file does not set
// (it comes from an include, or is a default) is added to its table.
func (s *Scenario) WriteFitted(src []byte, se *Series, best map[string]float64, rows []Row) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	var res []string
	for _, r := range rows {
		if r.Role == "calibrate" {
			res = append(res, fmt.Sprintf("%s %s=%v %s %+.2f%%", r.Variant, r.Axis, r.X, r.Metric, r.ErrorPct))
		}
	}
	note := "fitted by contend fit; calibrate residuals: " + strings.Join(res, ", ")
	for _, free := range se.Free {
		v, ok := best[free]
		if !ok {
			continue
		}
		kind, key, _ := strings.Cut(free, ".")
		h, err := s.tableOf(lines, se, kind, key)
		if err != nil {
			return nil, err
		}
		text := s.formatValue(se, free, v)
		lines = setKey(lines, h, key, text, note)
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// tableOf returns the line of the header of the table that sets key.
func (s *Scenario) tableOf(lines []string, se *Series, kind, key string) (int, error) {
	header := "[profile." + se.Profile + "]"
	if kind == "params" {
		header = "[params]"
		if _, own := se.Params[key]; own {
			return seriesParams(lines, s.seriesIndex(se))
		}
	}
	for i, l := range lines {
		if tableHeader(l) == header {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: %s is not in this file (it comes from an include); fit the file that defines it", s.File, header)
}

// seriesIndex returns which [[series]] of the file se is, counting only the
// series the file defines, not the copies [sweep] placement makes.
func (s *Scenario) seriesIndex(se *Series) int {
	i := 0
	for _, x := range s.Series {
		if x == se {
			return i
		}
		if !x.Copy {
			i++
		}
	}
	return -1
}

// seriesParams finds the [series.params] of the i-th [[series]].
func seriesParams(lines []string, i int) (int, error) {
	n := -1
	for j, l := range lines {
		switch tableHeader(l) {
		case "[[series]]":
			n++
		case "[series.params]":
			if n == i {
				return j, nil
			}
		}
	}
	return 0, fmt.Errorf("series %d has no [series.params] table in this file", i+1)
}

// tableHeader returns the header a line opens ("[x]" or "[[x]]"), or "".
func tableHeader(l string) string {
	l = strings.TrimSpace(l)
	if c := strings.Index(l, "#"); c >= 0 {
		l = strings.TrimSpace(l[:c])
	}
	if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
		return l
	}
	return ""
}

// setKey sets key = value in the table whose header is at line h, replacing
// the line that sets it or adding one after the header.
func setKey(lines []string, h int, key, value, note string) []string {
	re := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=\s*(.*)$`)
	for i := h + 1; i < len(lines) && tableHeader(lines[i]) == ""; i++ {
		if m := re.FindStringSubmatch(lines[i]); m != nil {
			old, _, _ := strings.Cut(m[1], "#")
			lines[i] = fmt.Sprintf("%s = %s  # was %s; %s", key, value, strings.TrimSpace(old), note)
			return lines
		}
	}
	add := fmt.Sprintf("%s = %s  # %s", key, value, note)
	return append(lines[:h+1], append([]string{add}, lines[h+1:]...)...)
}

// formatValue writes a fitted value the way the file gives it: a duration
// in ns, or a plain number.
func (s *Scenario) formatValue(se *Series, free string, v float64) string {
	num := strconv.FormatFloat(v, 'g', 6, 64)
	if s.FreeUnit(se, free) == "" {
		return num
	}
	return strconv.Quote(num + "ns")
}

// FreeUnit is the unit a free parameter of se is fitted in: "ns" for a
// duration, "" for a plain number (a fraction, a count).
func (s *Scenario) FreeUnit(se *Series, free string) string {
	if name, ok := strings.CutPrefix(free, "params."); ok {
		p, own := se.Params[name]
		if !own {
			p = s.Params[name]
		}
		if !p.IsTime {
			return ""
		}
	} else if Overlap(free) || free == "profile.snoop" {
		return ""
	}
	return "ns"
}
