package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"contend/scenarios"
)

// Bounds on one fuzzed command line: it must answer within deadline and
// allocate at most fuzzAlloc. Every point is held to fuzzEvents simulated
// events, so an accepted scenario costs milliseconds a point; a bigger
// answer is a bug of the bounds, not of the input.
const (
	fuzzAlloc    = 2 << 30
	fuzzEvents   = "20000"
	fuzzMaxFlags = 8
)

var fuzzCommands = []string{"run", "sweep", "validate", "explain", "fit"}

// FuzzCLI runs random scenario text and flags through contend run, sweep,
// validate, explain and fit in-process: no input may panic, hang past its
// deadline or allocate past its bound. Errors are answers; their status must
// be 1 or 2 with a message, and a success must print something, with no
// relative error that is not a number.
func FuzzCLI(f *testing.F) {
	for _, name := range scenarios.BuiltinNames() {
		src, err := fs.ReadFile(scenarios.Builtin(), name+".toml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), "--series "+name, src)
	}
	f.Add(uint8(2), "", []byte(base))
	f.Add(uint8(3), "--variant locked --cores 3", []byte(base))
	f.Add(uint8(4), "--jobs 2", []byte(base))
	f.Add(uint8(1), "--format csv", []byte(strings.Replace(base, `kind = "flood"`, "kind = \"batch\"\nbatch_ops = 3", 1)))
	f.Add(uint8(0), "--format json --seed 7", []byte(strings.Replace(base, "rate = 0", "rate = 1e8", 1)))
	f.Add(uint8(2), "", []byte(strings.Replace(base, "x = 1", "x = 0.5", 1)))
	f.Add(uint8(0), "", []byte(strings.Replace(base, `rx = [ { compute = "work" } ]`, `rx = [ { block = "rx" }, { block = "rx" } ]`, 1)))
	f.Add(uint8(0), "--max-events 5", []byte(base))
	f.Add(uint8(3), "--variant locked --trace 50 --trace-from 1us", []byte(base))
	f.Add(uint8(3), "--variant locked --trace 3 --format json", []byte(base))
	f.Add(uint8(3), "--variant locked", []byte{})
	f.Add(uint8(3), "--variant locked", []byte(strings.Replace(base, "cores = 2", "cores = 2\nunit = \"op\"", 1)))
	f.Fuzz(func(t *testing.T, cmd uint8, flags string, src []byte) {
		if len(src) > 64<<10 {
			return // the file-size bound has its own test
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "f.toml")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if len(src) == 0 {
			path = "ingress"
		}
		// The bounds go first: a fuzzed "--" would make later flags names
		// of scenarios. safeFlags drops any that would override them.
		args := []string{fuzzCommands[int(cmd)%len(fuzzCommands)], "--max-events", fuzzEvents, "--jobs", "1", path}
		args = append(args, safeFlags(flags, dir)...)
		out, errOut, code := answerBounded(t, args)
		switch {
		case code == 0 && out == "":
			t.Errorf("contend %q: success with nothing printed", args)
		case code == 0 && (strings.Contains(out, "Inf%") || strings.Contains(out, "NaN%")):
			t.Errorf("contend %q: an error that is not a number:\n%s", args, out)
		case code != 0 && strings.TrimSpace(errOut) == "":
			t.Errorf("contend %q: status %d with no message", args, code)
		case code != 0 && code != 1 && code != 2:
			t.Errorf("contend %q: status %d", args, code)
		}
	})
}

// safeFlags splits fuzzed flags, keeping at most fuzzMaxFlags and none that
// lifts the fuzz's bounds (--max-events, --jobs); an output file always goes
// into dir, whatever path the input names.
func safeFlags(flags, dir string) []string {
	var out []string
	for _, f := range strings.Fields(flags) {
		if len(out) == fuzzMaxFlags {
			break
		}
		name := strings.TrimLeft(f, "-")
		if strings.HasPrefix(f, "-") && (strings.HasPrefix(name, "max-events") || strings.HasPrefix(name, "jobs")) {
			continue
		}
		if strings.HasPrefix(f, "-") && (name == "o" || strings.HasPrefix(name, "o=")) {
			out = append(out, "-o", filepath.Join(dir, "out"))
			continue
		}
		out = append(out, f)
	}
	return out
}

// answerBounded runs Main within deadline and fails t if it allocates more
// than fuzzAlloc (measured over the process, which runs one input at a time
// under -parallel 1).
func answerBounded(t *testing.T, args []string) (string, string, int) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, errOut, code := answer(t, args...)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > fuzzAlloc {
		t.Errorf("contend %q allocated %d MiB, more than %d", args, n>>20, fuzzAlloc>>20)
	}
	return out, errOut, code
}
