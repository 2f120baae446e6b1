package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeValidateTable keeps docs/accuracy.md's validate table equal to
// what `contend validate` prints today.
func TestReadmeValidateTable(t *testing.T) {
	readmeBlock(t, "docs/accuracy.md", "validate", "validate")
}

// TestReadmeAdvise keeps docs/cli.md's advise example equal to what it
// prints today.
func TestReadmeAdvise(t *testing.T) {
	readmeBlock(t, "docs/cli.md", "advise", "advise", "ingress", "--variant", "locked", "--cores", "2")
}

// TestReadmeImport keeps docs/cli.md's import example, a perf c2c report
// matched to ingress's lines, equal to what it prints today.
func TestReadmeImport(t *testing.T) {
	readmeBlock(t, "docs/cli.md", "import", "import", "perffile/testdata/perf-c2c-report.txt", "--scenario", "ingress", "--variant", "locked", "--x", "2")
}

// tourCommand opens a command block that the quick tour shows with its
// output: the fence at the start of a line, then the command as typed.
const tourCommand = "\n```\n$ go run ./cmd/contend "

// TestReadmeTour runs every command block of the README (a ``` block whose
// first line is `$ go run ./cmd/contend ...`) as a new user would, from the
// top of a fresh clone, and keeps the output shown under it equal to what
// the command prints today, or rewrites it with -update.
func TestReadmeTour(t *testing.T) {
	t.Chdir("../..")
	text := readDoc(t, "README.md")
	var want strings.Builder
	var stale []string
	n := 0
	rest := text
	for {
		i := strings.Index(rest, tourCommand)
		if i < 0 {
			break
		}
		i++ // keep the newline before the fence
		j := strings.Index(rest[i+len("```\n"):], "\n```\n")
		if j < 0 {
			t.Fatalf("README.md: the command block at %q has no closing ```", firstLine(rest[i+len("```\n"):]))
		}
		end := i + len("```\n") + j + len("\n```\n")
		line := strings.TrimPrefix(firstLine(rest[i+len("```\n"):]), "$ go run ./cmd/contend ")
		if strings.ContainsAny(line, `'"`) {
			t.Fatalf("README.md: %q quotes an argument; the tour's commands split on spaces, so write it without quotes", line)
		}
		block := commandBlock(t, strings.Fields(line))
		if rest[i:end] != block {
			stale = append(stale, line)
		}
		want.WriteString(rest[:i] + block)
		rest = rest[end:]
		n++
	}
	want.WriteString(rest)
	if n == 0 {
		t.Fatalf("README.md has no command block (a line %q after a ``` fence)", "$ go run ./cmd/contend ...")
	}
	settle(t, "README.md", text, want.String(), stale)
}

// readmeBlock checks the block named name of file (README.md or a file of
// docs/, between its begin and end markers) against the output of contend
// args, run from the top of the repository as the README says, or rewrites
// it with -update.
func readmeBlock(t *testing.T, file, name string, args ...string) {
	t.Helper()
	t.Chdir("../..")
	begin := "<!-- " + name + ": begin (go test ./cmd/contend/ -update rewrites this) -->\n"
	end := "<!-- " + name + ": end -->"
	text := readDoc(t, file)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s block between %q and %q", file, name, begin, end)
	}
	block := commandBlock(t, args)
	var stale []string
	if text[i+len(begin):j] != block {
		stale = []string{name}
	}
	settle(t, file, text, text[:i+len(begin)]+block+text[j:], stale)
}

// commandBlock runs contend args and gives the block that shows it: the
// command as typed, then what it printed (stdout, then stderr). A file
// named by -o is written in a temporary folder and named as given.
func commandBlock(t *testing.T, args []string) string {
	t.Helper()
	run := append([]string(nil), args...)
	dir := t.TempDir()
	for i := 1; i < len(run); i++ {
		if run[i-1] == "-o" {
			run[i] = filepath.Join(dir, run[i])
		}
	}
	var out, errb bytes.Buffer
	if code := Main(run, &out, &errb); code != 0 {
		t.Fatalf("%s: status %d: %s", strings.Join(args, " "), code, errb.String())
	}
	printed := strings.ReplaceAll(out.String()+errb.String(), dir+string(filepath.Separator), "")
	return "```\n$ go run ./cmd/contend " + strings.Join(args, " ") + "\n" + printed + "```\n"
}

// settle compares text, file's contents, with want, what its generated
// blocks say today: it fails naming the stale blocks, or with -update
// writes want.
func settle(t *testing.T, file, text, want string, stale []string) {
	t.Helper()
	if text == want {
		return
	}
	if !*update {
		line, got, today := firstDifference(text, want)
		t.Fatalf("%s's blocks %s are stale (line %d reads %q, today %q); run go test ./cmd/contend/ -update and read the diff", file, strings.Join(stale, "; "), line, got, today)
	}
	if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readDoc(t *testing.T, file string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// firstDifference gives the first line, counted from 1, where a and b
// differ, and that line of each.
func firstDifference(a, b string) (int, string, string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; ; i++ {
		if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
			return i + 1, lineAt(la, i), lineAt(lb, i)
		}
	}
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}

// corpusSeries are the scaling corpus's series, as docs/accuracy.md's
// section on it names them.
var corpusSeries = []string{"x5-4-", "8176-", "x5550-", "i7-8750h-", "ivbex-"}

// TestReadmeStandings keeps the counts README.md and docs/accuracy.md
// state in words equal to the validate block of docs/accuracy.md (which
// TestReadmeValidateTable keeps equal to what validate prints): the
// changes within 10 points, and the scaling corpus's validate points
// within 25% and beyond 50%.
func TestReadmeStandings(t *testing.T) {
	t.Chdir("../..")
	acc := readDoc(t, "docs/accuracy.md")
	begin := strings.Index(acc, "<!-- validate: begin")
	end := strings.Index(acc, "<!-- validate: end -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/accuracy.md has no validate block")
	}
	var points, within25, beyond50, changes, within10 int
	for _, line := range strings.Split(acc[begin:end], "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 4 && f[len(f)-1] == "points" && strings.HasPrefix(f[len(f)-2], "±") && f[len(f)-3] == "points":
			// A change: ... MISSED BY "x points", BAND "±y points".
			missed := parsePct(t, f[len(f)-4])
			changes++
			if math.Abs(missed) <= 10 {
				within10++
			}
		case slices.Index(f, "validate") > 0 && slices.ContainsFunc(corpusSeries, func(p string) bool { return strings.HasPrefix(f[0], p) }):
			e := math.Abs(parsePct(t, strings.TrimSuffix(f[slices.Index(f, "validate")-1], "%")))
			points++
			if e <= 25 {
				within25++
			}
			if e > 50 {
				beyond50++
			}
		}
	}
	if points == 0 || changes == 0 {
		t.Fatalf("read %d corpus points and %d changes from docs/accuracy.md's validate block", points, changes)
	}
	for _, doc := range []struct {
		file, text string
		says       []string
	}{
		{"README.md", readDoc(t, "README.md"), []string{
			fmt.Sprintf("%d of %d\n  are predicted within 10%%", within10, changes),
			fmt.Sprintf("scaling corpus's %d validate points", points),
			fmt.Sprintf("%d are within 25%% and %d are\n  more than 50%% off", within25, beyond50),
		}},
		{"docs/accuracy.md", acc, []string{
			fmt.Sprintf("Of their %d validate points %d (%.0f%%) are within 25%% and %d are more than 50%% off", points, within25, 100*float64(within25)/float64(points), beyond50),
		}},
	} {
		for _, w := range doc.says {
			if !strings.Contains(doc.text, w) {
				t.Errorf("%s does not say %q, which docs/accuracy.md's validate block gives", doc.file, w)
			}
		}
	}
}

func parsePct(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, "+"), 64)
	if err != nil {
		t.Fatalf("%q is not a number: %v", s, err)
	}
	return v
}
