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
	CPUID string `json:"cpuid"`
	MHz   string `json:"mhz"` // the clock /proc/cpuinfo reports (nominal in a guest)
	// Caches are CPU 0's caches from /sys ("L1d 48K L1i 32K L2 2048K
	// L3 107520K"), and Features the flags of /proc/cpuinfo that tell
	// x86 generations apart (featureMarks): a guest's cpuid may name a
	// model the host is not (a Sapphire Rapids host archived as family 6
	// model 167 has AMX and 2 MiB of L2 a core), and these say which
	// core the loops ran on.
	Caches     string    `json:"caches,omitempty"`
	Features   string    `json:"features,omitempty"`
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
		case k == "flags" && p.Features == "":
			if strings.Contains(" "+v+" ", " hypervisor ") {
				p.Hypervisor = "yes (cpuid hypervisor flag)"
			}
			p.Features = marks(v)
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
	p.Caches = caches(fsys)
	p.Kernel = firstLine(fsys, "proc/sys/kernel/osrelease")
	p.Load = firstLine(fsys, "proc/loadavg")
	p.Sched = policy(firstLine(fsys, "proc/self/stat"))
	return p
}

// featureMarks are flags of /proc/cpuinfo that first came with one x86
// generation, oldest first: AVX2 (Haswell, Zen 1), AVX-512 (Skylake-SP),
// the VNNI, GFNI and VAES of Ice Lake and Zen 4, SERIALIZE and
// MOVDIR64B (Sapphire Rapids and later client cores), AMX and
// AVX512-FP16 (Sapphire Rapids), AVX-VNNI (Alder Lake, Zen 5 client and
// Sapphire Rapids), and AMD's own: SSE4a, CLZERO (Zen), RDPRU (Zen 2).
var featureMarks = []string{"avx2", "avx512f", "avx512_vnni", "gfni", "vaes", "serialize", "movdir64b",
	"amx_tile", "avx512_fp16", "avx_vnni", "sse4a", "clzero", "rdpru"}

// marks returns those of featureMarks that flags, a flags line of
// /proc/cpuinfo, has, in featureMarks' order.
func marks(flags string) string {
	have := map[string]bool{}
	for _, f := range strings.Fields(flags) {
		have[f] = true
	}
	var out []string
	for _, m := range featureMarks {
		if have[m] {
			out = append(out, m)
		}
	}
	return strings.Join(out, " ")
}

// caches reads CPU 0's caches from /sys: level, type and size of each.
func caches(fsys fs.FS) string {
	var out []string
	for i := 0; ; i++ {
		dir := fmt.Sprintf("sys/devices/system/cpu/cpu0/cache/index%d/", i)
		level, size := firstLine(fsys, dir+"level"), firstLine(fsys, dir+"size")
		if level == "" || size == "" {
			break
		}
		name := "L" + level
		switch firstLine(fsys, dir+"type") {
		case "Data":
			name += "d"
		case "Instruction":
			name += "i"
		}
		out = append(out, name+" "+size)
	}
	return strings.Join(out, " ")
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
		"caches: " + or(p.Caches, "unknown"),
		"features: " + or(p.Features, "none of those calibrate records"),
		"kernel: " + or(p.Kernel, "unknown"),
		"hypervisor: " + or(p.Hypervisor, "none detected"),
		"date: " + p.Date.Format(time.RFC3339),
		"tool: " + p.Tool + ", " + p.Go,
		"load average when measuring started: " + or(p.Load, "unknown"),
		"scheduling: " + or(p.Sched, "unknown"),
		"effort: " + p.Effort,
	}
}
