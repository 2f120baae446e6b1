package perffile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"contend/scenarios"
)

// isTable says whether src is a CSV table: its first line is a header
// naming the columns.
func isTable(src []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(src, " \t\r\n"), []byte("\n"))
	return bytes.HasPrefix(bytes.TrimSpace(first), []byte("variant,"))
}

// csvError says where a table is not CSV: its line and column, and how a
// field with quotes is written.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: column %d: %v; a field with a quote or a comma in it is written in quotes, each quote in it doubled: \"a \"\"b\"\", c\"", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %v", name, err)
}

var tableColumns = []string{"variant", "axis", "x", "metric", "value", "unit"}

// parseTable reads a CSV of measured points: variant, axis, x, metric,
// value, unit, and optionally role and source. Every row is one block.
func parseTable(name string, src []byte, o Options) ([]block, error) {
	r := csv.NewReader(bytes.NewReader(src))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, csvError(name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range tableColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: no column %q; the header is %s (role and source may follow)", name, c, strings.Join(tableColumns, ","))
		}
	}
	var out []block
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := r.FieldPos(0)
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		p := point{line: line, variant: get("variant"), axis: get("axis"), metric: get("metric"), unit: get("unit"),
			role: get("role"), source: get("source"), hasX: true}
		if p.variant == "" {
			return nil, fmt.Errorf("%s:%d: variant is empty; name the variant the row measured", name, line)
		}
		if p.x, err = number(get("x")); err != nil {
			return nil, fmt.Errorf("%s:%d: x: %v", name, line, err)
		}
		if p.value, err = number(get("value")); err != nil {
			return nil, fmt.Errorf("%s:%d: value: %v", name, line, err)
		}
		if err := scenarios.CheckMetric(p.metric, p.unit); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if p.role != "" && p.role != "validate" && p.role != "calibrate" {
			return nil, fmt.Errorf("%s:%d: role %q: use validate or calibrate, or leave it empty for --role", name, line, p.role)
		}
		if p.source == "" {
			p.source = fmt.Sprintf("%s:%d", name, line)
		}
		out = append(out, block{line: line, kind: "table", variant: p.variant, points: []point{p}})
	}
}

// number parses a measured value: finite, written plainly or with
// thousands separators as perf prints them (1,234,567; not 1,2,3,,4).
func number(s string) (float64, error) {
	plain := s
	if strings.Contains(s, ",") {
		if !grouped.MatchString(s) {
			return 0, fmt.Errorf("%q is not a number; write it plainly or with a comma between each three digits, as perf does (1,234,567)", s)
		}
		plain = strings.ReplaceAll(s, ",", "")
	}
	v, err := strconv.ParseFloat(plain, 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

var grouped = regexp.MustCompile(`^[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?$`)
