package main

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkValidateAll times 'contend validate' over every built-in; the
// target is under 60 s per run on a 2-core machine.
func BenchmarkValidateAll(b *testing.B) {
	var stderr bytes.Buffer
	for b.Loop() {
		stderr.Reset()
		if code := Main([]string{"validate"}, io.Discard, &stderr); code != 0 {
			b.Fatalf("contend validate: status %d:\n%s", code, stderr.String())
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/validate")
}

// BenchmarkSweep200 runs a sweep of 200 points (four series over two axes)
// on two workers and reports points simulated per second of wall time.
func BenchmarkSweep200(b *testing.B) {
	var stderr bytes.Buffer
	for b.Loop() {
		stderr.Reset()
		if code := Main([]string{"sweep", "testdata/sweep200.toml", "--jobs", "2", "--format", "csv"}, io.Discard, &stderr); code != 0 {
			b.Fatalf("contend sweep: status %d:\n%s", code, stderr.String())
		}
	}
	b.ReportMetric(200*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
