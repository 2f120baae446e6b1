package hostbench

import (
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"time"

	"contend/internal/version"
)

// Provenance says where and when a profile was measured.
type Provenance struct {
	CPU string `json:"cpu"` // model name from /proc/cpuinfo
	// CPUID is vendor, family, model and stepping from /proc/cpuinfo
	// ("GenuineIntel family 6 model 167 stepping 1"): what tells one
	// kind of machine from another where model names are generic.
	CPUID      string    `json:"cpuid"`
	MHz        string    `json:"mhz"` // the clock /proc/cpuinfo reports (nominal in a guest)
	Kernel     string    `json:"kernel"`
	Hypervisor string    `json:"hypervisor"` // "" on bare metal
	Date       time.Time `json:"date"`
	Tool       string    `json:"tool"` // contend's module version and VCS revision
	Go         string    `json:"go"`
	Load       string    `json:"load"`   // /proc/loadavg when measuring started: other work on the CPUs
	Sched      string    `json:"sched"`  // the scheduling policy the loops ran under (chrt -f makes them preempt other work)
	Effort     string    `json:"effort"` // quick or full, samples per figure
}

// ReadProvenance reads provenance from fsys, a view of the root file system.
func ReadProvenance(fsys fs.FS, now time.Time) Provenance {
	p := Provenance{Date: now.UTC(), Go: runtime.Version(), Tool: version.Tool()}
	info, _ := fs.ReadFile(fsys, "proc/cpuinfo")
	id := map[string]string{}
	for _, l := range strings.Split(string(info), "\n") {
		k, v, ok := strings.Cut(l, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok:
		case (k == "vendor_id" || k == "cpu family" || k == "model" || k == "stepping") && id[k] == "":
			id[k] = v
		case k == "model name" && p.CPU == "":
			p.CPU = v
		case k == "cpu MHz" && p.MHz == "":
			p.MHz = v
		case k == "flags" && p.Hypervisor == "" && strings.Contains(" "+v+" ", " hypervisor "):
			p.Hypervisor = "yes (cpuid hypervisor flag)"
		}
	}
	if id["vendor_id"] != "" {
		p.CPUID = fmt.Sprintf("%s family %s model %s stepping %s", id["vendor_id"], id["cpu family"], id["model"], id["stepping"])
	}
	if vendor := firstLine(fsys, "sys/class/dmi/id/sys_vendor"); vendor != "" && p.Hypervisor != "" {
		p.Hypervisor = vendor + " " + firstLine(fsys, "sys/class/dmi/id/product_name")
	}
	if t := firstLine(fsys, "sys/hypervisor/type"); t != "" {
		p.Hypervisor = t
	}
	p.Kernel = firstLine(fsys, "proc/sys/kernel/osrelease")
	p.Load = firstLine(fsys, "proc/loadavg")
	p.Sched = policy(firstLine(fsys, "proc/self/stat"))
	return p
}

// policy reads the scheduling policy and real-time priority from a line of
// /proc/PID/stat (fields 40 and 41, counted after the command's closing
// parenthesis, which may itself hold spaces).
func policy(stat string) string {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3
	if len(f) < 39 {
		return ""
	}
	names := map[string]string{"0": "SCHED_OTHER", "1": "SCHED_FIFO", "2": "SCHED_RR", "3": "SCHED_BATCH", "5": "SCHED_IDLE", "6": "SCHED_DEADLINE"}
	name, ok := names[f[38]]
	if !ok {
		name = "policy " + f[38]
	}
	if f[37] != "0" {
		name += " priority " + f[37]
	}
	return name
}

func firstLine(fsys fs.FS, name string) string {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return ""
	}
	l, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(l)
}

// lines returns the provenance as comment lines for a profile file.
func (p Provenance) lines() []string {
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	return []string{
		fmt.Sprintf("cpu: %s (%s MHz reported by /proc/cpuinfo)", or(p.CPU, "unknown"), or(p.MHz, "?")),
		"cpuid: " + or(p.CPUID, "unknown"),
		"kernel: " + or(p.Kernel, "unknown"),
		"hypervisor: " + or(p.Hypervisor, "none detected"),
		"date: " + p.Date.Format(time.RFC3339),
		"tool: " + p.Tool + ", " + p.Go,
		"load average when measuring started: " + or(p.Load, "unknown"),
		"scheduling: " + or(p.Sched, "unknown"),
		"effort: " + p.Effort,
	}
}
