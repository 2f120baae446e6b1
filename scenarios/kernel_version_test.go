package scenarios_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"contend/models"
	"contend/scenarios"
)

// kernelScenario is a minimal scenario with the given [kernel] table.
func kernelScenario(kernel string) fstest.MapFS {
	return fstest.MapFS{"k.toml": {Data: []byte(`name = "k"
[kernel]
` + kernel + `
[profile.p]
ghz = 1
sockets = 1
cores_per_socket = 4
l1_hit = "1ns"
smt_sibling = "1ns"
same_socket = "1ns"
other_socket = "1ns"
memory = "1ns"
atomic = "1ns"
wakeup = "1us"
[[variant]]
name = "v"
steps = [ { compute = "1ns" }, { synchronize_rcu = true } ]
[workload]
kind = "batch"
`)}}
}

// A version sets the paths that changed, and each field overrides it.
func TestKernelVersionPresets(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		want   func(k models.Kernel) bool
	}{
		{`version = "5.2"`, func(k models.Kernel) bool {
			return k.Version == "5.2" && k.Kfree == models.KfreePerObject && k.WakeFromGP == models.Off
		}},
		{`version = "5.10"`, func(k models.Kernel) bool { return k.Kfree == models.KfreeBatch }},
		{`version = "6.17"`, func(k models.Kernel) bool { return k.WakeFromGP == models.Auto }},
		{"version = \"6.17\"\nwake_from_gp = false", func(k models.Kernel) bool { return k.WakeFromGP == models.Off }},
		{"version = \"5.2\"\nhz = 1000\nfast_no_hz = true\nkfree_batch = true", func(k models.Kernel) bool {
			return k.HZ == 1000 && k.FastNoHZ && k.Kfree == models.KfreeBatch
		}},
		{"use_softirq = false\nnr_cpu_ids = 256", func(k models.Kernel) bool { return k.RCUC && k.NrCPUIDs == 256 }},
	} {
		s, err := scenarios.Load(kernelScenario(tc.kernel), "k.toml")
		if err != nil {
			t.Errorf("%q: %v", tc.kernel, err)
			continue
		}
		if !tc.want(s.Kernel) {
			t.Errorf("%q gave %+v", tc.kernel, s.Kernel)
		}
	}
}

// A version the model does not know, or a setting the version lacks, is an
// error at its line that says what to write instead.
func TestKernelVersionErrors(t *testing.T) {
	for _, tc := range []struct {
		kernel, field, says string
		line                int
	}{
		{`version = "4.19"`, "kernel.version", `use one of ["5.2"`, 3},
		{"version = \"5.2\"\nlazy = true", "kernel.lazy", "6.2 and later", 4},
		{"version = \"6.12\"\nfast_no_hz = true", "kernel.fast_no_hz", "removed in 5.17", 4},
		{"nr_cpu_ids = -1", "kernel.nr_cpu_ids", "number of possible CPUs", 3},
	} {
		_, err := scenarios.Load(kernelScenario(tc.kernel), "k.toml")
		var se *scenarios.Error
		if !errors.As(err, &se) || se.Line != tc.line || !strings.Contains(se.Error(), tc.field) || !strings.Contains(se.Msg, tc.says) {
			t.Errorf("%q: got %v; want an error at k.toml:%d on %s saying %q", tc.kernel, err, tc.line, tc.field, tc.says)
		}
	}
}
