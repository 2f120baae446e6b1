package report

import (
	"bytes"
	"fmt"
	"strconv"
	"text/tabwriter"
)

// Advice is what advise found: the point it simulated, the base variant's
// rate there and the ranked candidates.
type Advice struct {
	Scenario string  `json:"scenario"`
	Series   string  `json:"series"`
	Profile  string  `json:"profile"`
	Variant  string  `json:"variant"`
	Axis     string  `json:"axis"`
	X        float64 `json:"x"`
	Unit     string  `json:"unit"`              // of the rates
	Rate     float64 `json:"rate"`              // the base variant's
	Samples  int     `json:"samples,omitempty"` // draws of the profile's spread (--uncertainty)
	// BandKind is the kind of change whose error band widens the gains,
	// and Band what that band holds over the published cases.
	BandKind string      `json:"band_kind,omitempty"`
	Band     string      `json:"band,omitempty"`
	Rows     []AdviceRow `json:"rows"`
}

// AdviceRow is one ranked candidate: its rate, in the unit of the advice,
// and its gain over the base variant in percent.
type AdviceRow struct {
	Rule    string  `json:"rule"`
	Change  string  `json:"change"`
	Variant string  `json:"variant"`
	Rate    float64 `json:"rate"`
	GainPct float64 `json:"gain_pct"`
	LowPct  float64 `json:"low_pct"`
	HighPct float64 `json:"high_pct"`
	// The gain's bounds widened by the error band, in percent.
	BandLowPct  float64 `json:"band_low"`
	BandHighPct float64 `json:"band_high"`
	Explain     string  `json:"explain"`
	File        string  `json:"file,omitempty"` // written by --write
}

// RenderAdvice prints what advise found in format: text (a ranked table),
// csv (the base variant as rank 0) or json.
func RenderAdvice(buf *bytes.Buffer, format string, a *Advice) error {
	switch format {
	case "json":
		if a.Rows == nil {
			a.Rows = []AdviceRow{}
		}
		return WriteJSON(buf, a)
	case "csv":
		w := NewCSV(buf)
		w.Write([]string{"rank", "rule", "change", "variant", "rate", "unit", "gain_pct", "low_pct", "high_pct", "band_low", "band_high", "explain"})
		w.Write([]string{"0", "", "none", a.Variant, Num(a.Rate), a.Unit, "0", "0", "0", "0", "0", ""})
		for i, r := range a.Rows {
			w.Write([]string{strconv.Itoa(i + 1), r.Rule, r.Change, r.Variant, Num(r.Rate), a.Unit, Num(r.GainPct), Num(r.LowPct), Num(r.HighPct),
				Num(r.BandLowPct), Num(r.BandHighPct), r.Explain})
		}
		w.Flush()
		return w.Error()
	}
	fmt.Fprintf(buf, "%s: variant %s, series %s (profile %s), %s=%s: %s %s\n", a.Scenario, a.Variant, a.Series, a.Profile, a.Axis, Num(a.X), Fixed(a.Rate), a.Unit)
	if len(a.Rows) == 0 {
		fmt.Fprintf(buf, "no rule applies: no line that a store or atomic step writes is written by more than one CPU, and no lock, rwlock or synchronize_rcu can change (a qspinlock that claims with a store and prefetches its successor's node, or an MCS lock, is already where the lock rules lead)\n")
		return nil
	}
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	interval := ""
	if a.Samples > 0 {
		interval = fmt.Sprintf("90%% INTERVAL (%d DRAWS)\t", a.Samples)
	}
	banded := ""
	if a.Band != "" {
		banded = "WITH ERROR BAND\t"
	}
	fmt.Fprintf(tw, "RANK\tCHANGE\tTHROUGHPUT\tGAIN\t%s%sWHY\n", interval, banded)
	for i, r := range a.Rows {
		if a.Samples > 0 {
			interval = fmt.Sprintf("%s%% – %s%%\t", Signed(r.LowPct, 1), Signed(r.HighPct, 1))
		}
		if a.Band != "" {
			banded = fmt.Sprintf("%s%% – %s%%\t", Signed(r.BandLowPct, 0), Signed(r.BandHighPct, 0))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s %s\t%s%%\t%s%s%s\n", i+1, r.Change, Fixed(r.Rate), a.Unit, Signed(r.GainPct, 1), interval, banded, r.Explain)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if a.Band != "" {
		fmt.Fprintf(buf, "ranked by the gain's lower bound with the error band of a %s: %s\n", a.BandKind, a.Band)
	}
	return nil
}
