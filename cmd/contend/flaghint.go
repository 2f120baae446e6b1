package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"contend/scenarios"
)

// flagHint says what to do about a flag command does not have: the flag of
// its own that is spelt nearly so (--serie: --series), or the commands that
// do have it (run has no --cores; explain, advise and sweep's points do
// other things with one). It returns "" when it knows nothing better than
// the usage the flag package prints.
func flagHint(command, name string, own *flag.FlagSet) string {
	var near []string
	own.VisitAll(func(f *flag.Flag) {
		if scenarios.EditDistance(f.Name, name) <= 2 && len(f.Name) > 2 {
			near = append(near, "--"+f.Name)
		}
	})
	if len(near) > 0 {
		return fmt.Sprintf("contend %s: no flag --%s; did you mean %s?", command, name, strings.Join(near, " or "))
	}
	var others []string
	for _, c := range commandNames {
		if c != command && slices.Contains(flagsOf(c), name) {
			others = append(others, c)
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("contend %s: no flag --%s; it is a flag of %s (contend %s -h lists its flags)", command, name, orJoin(others), others[0])
}

// commandNames are the commands whose flags flagHint looks through, in the
// order the usage lists them.
var commandNames = []string{"run", "sweep", "merge", "validate", "explain", "fit", "advise", "plot", "serve", "calibrate", "import"}

var flagLine = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)

// flagsOf lists the flags of command as its -h prints them: each command
// declares its own, so this cannot go stale.
func flagsOf(command string) []string {
	cmd := commandFuncs()[command]
	if cmd == nil {
		return nil
	}
	var buf bytes.Buffer
	_ = cmd([]string{"-h"}, io.Discard, &buf)
	var names []string
	for _, m := range flagLine.FindAllStringSubmatch(buf.String(), -1) {
		names = append(names, m[1])
	}
	return names
}

func orJoin(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
