package models

import (
	"testing"

	"contend/sim"
)

// The histogram's buckets against a naive count of the recorded values in
// each power-of-two range of milliseconds (or of µs when all are under one).
func TestLatencyHistogramNaive(t *testing.T) {
	for _, unit := range []sim.Time{sim.Microsecond, sim.Millisecond} {
		var rec latencyRecord
		var vals []sim.Time
		for i := int64(0); i < 3000; i++ {
			v := sim.Time((i*7919)%997+3) * unit / 4 // 0.75 to 250 units
			if unit == sim.Microsecond {
				v = min(v, 999*sim.Microsecond)
			}
			vals = append(vals, v)
			rec.Record(int64(v))
		}
		l := latencyOf(&rec)
		var total uint64
		for _, b := range l.Histogram {
			var want uint64
			for _, v := range vals {
				us := float64(v) / float64(sim.Microsecond)
				if us >= b.LoUs && us < b.HiUs {
					want++
				}
			}
			if b.Count != want {
				t.Errorf("unit %v: bucket [%g, %g) µs holds %d, want %d", unit, b.LoUs, b.HiUs, b.Count, want)
			}
			total += b.Count
		}
		if total != uint64(len(vals)) || l.Histogram[0].LoUs != 0 {
			t.Errorf("unit %v: buckets hold %d of %d values, first from %g", unit, total, len(vals), l.Histogram[0].LoUs)
		}
		if !(l.MinUs <= l.P10Us && l.P10Us <= l.P50Us && l.P50Us <= l.P90Us && l.P90Us <= l.P99Us && l.P99Us <= l.MaxUs) {
			t.Errorf("unit %v: percentiles out of order: %+v", unit, l)
		}
	}
}
