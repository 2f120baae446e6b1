package hostbench

import (
	_ "embed"
	"fmt"
	"strings"
)

// hostsIndex lists the machines archived in testdata/hosts, one record a
// line: file, CPU count, cpuid (or "-" when the record predates it) and
// model name, tab-separated. TestArchiveIndex keeps it equal to the archive.
//
//go:embed hosts.txt
var hostsIndex string

// Identity is what tells one kind of machine from another: the cpuid
// (vendor, family, model, stepping), else the model name, and the CPU count.
type Identity struct {
	CPUID, CPU string
	CPUs       int
}

func (id Identity) String() string {
	what := id.CPUID
	if what == "" {
		what = id.CPU
	}
	return fmt.Sprintf("%s, %d CPUs", what, id.CPUs)
}

// IdentityOf is the identity of a machine from its provenance and topology.
func IdentityOf(p Provenance, t Topology) Identity {
	return Identity{CPUID: p.CPUID, CPU: p.CPU, CPUs: len(t.CPUs)}
}

// indexLine is the archive index's line for a record.
func (id Identity) indexLine(file string) string {
	cpuid := id.CPUID
	if cpuid == "" {
		cpuid = "-"
	}
	return fmt.Sprintf("%s\t%d\t%s\t%s", file, id.CPUs, cpuid, id.CPU)
}

// Archived returns the archived records of machines like id: the same CPU
// count and cpuid. A record without a cpuid stands only for a machine that
// has none either and the same model name: a guest's model name ("Intel(R)
// Xeon(R) Processor") can be the same on different parts, and measuring a
// machine twice costs less than never measuring one.
func Archived(id Identity) []string {
	cpuid := id.CPUID
	if cpuid == "" {
		cpuid = "-"
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(hostsIndex), "\n") {
		f := strings.SplitN(l, "\t", 4)
		if len(f) == 4 && f[1] == fmt.Sprint(id.CPUs) && f[2] == cpuid && (cpuid != "-" || f[3] == id.CPU) {
			out = append(out, f[0])
		}
	}
	return out
}
