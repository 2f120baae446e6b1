package hostbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing/fstest"
	"time"

	"contend/scenarios"
)

// Record is one calibrate run as it is stored (calibrate --format json):
// the raw figures, the machine they ran on, and the check of the model of
// its day. A profile is derived from a record by code, so every later model
// refits and rechecks every machine ever measured (calibrate --from).
type Record struct {
	// Host says which machine ran the loops; Topology, how its CPUs sit.
	// Records written before they existed have only the profile's header
	// and shape lines, which ReadRecord reads instead.
	Host     *Provenance     `json:"host,omitempty"`
	Topology []CPU           `json:"topology,omitempty"`
	Figures  []Figure        `json:"figures"`
	Profile  string          `json:"profile"`
	Check    []scenarios.Row `json:"check,omitempty"`
}

// NewRecord is the record of a calibration.
func NewRecord(cal *Calibration, prov Provenance, check bool) Record {
	r := Record{Host: &prov, Topology: cal.topo.CPUs, Figures: cal.Figures, Profile: cal.Profile}
	if check {
		r.Check = cal.Rows
	}
	return r
}

// ReadRecord reads a stored record; name is the file's name for errors. It
// returns the figures with their loops, the topology and the provenance.
func ReadRecord(name string, data []byte) ([]Figure, Topology, Provenance, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, Topology{}, Provenance{}, fmt.Errorf("%s: not a calibrate record (contend calibrate --format json): %w", name, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, Topology{}, Provenance{}, fmt.Errorf("%s: data after the record; a file holds one calibrate run", name)
	}
	if len(r.Figures) == 0 {
		return nil, Topology{}, Provenance{}, fmt.Errorf("%s: the record has no figures", name)
	}
	for i := range r.Figures {
		f := &r.Figures[i]
		j, err := parseJob(f.Bench)
		if err != nil {
			return nil, Topology{}, Provenance{}, fmt.Errorf("%s: figure %q: %w", name, f.Name, err)
		}
		f.Job = j
		if f.Stat.N > 0 && !(f.Stat.Median > 0) {
			return nil, Topology{}, Provenance{}, fmt.Errorf("%s: figure %q has median %v ns; a loop takes a positive time", name, f.Name, f.Stat.Median)
		}
	}
	if len(r.Topology) > maxRecordCPUs {
		return nil, Topology{}, Provenance{}, fmt.Errorf("%s: %d CPUs in the topology, more than the %d a record may hold", name, len(r.Topology), maxRecordCPUs)
	}
	topo := Topology{CPUs: r.Topology}
	if len(topo.CPUs) == 0 {
		var err error
		if topo, err = shapeTopology(r.Profile); err != nil {
			return nil, Topology{}, Provenance{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	prov := headerProvenance(r.Profile)
	if r.Host != nil {
		prov = *r.Host
	}
	return r.Figures, topo, prov, nil
}

// parseJob reads a job as Job.String writes it: "ticket cpus=[0 1] work=5".
func parseJob(s string) (Job, error) {
	var j Job
	kernel, rest, _ := strings.Cut(s, " ")
	k := Kernel(0)
	for ; k < numKernels && k.String() != kernel; k++ {
	}
	if k == numKernels {
		return j, fmt.Errorf("loop %q: unknown kernel %q", s, kernel)
	}
	j.Kernel = k
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "cpus=[") {
		return j, fmt.Errorf("loop %q: want cpus=[...] after the kernel", s)
	}
	cpus, rest, ok := strings.Cut(rest[len("cpus=["):], "]")
	if !ok {
		return j, fmt.Errorf("loop %q: cpus=[ is not closed", s)
	}
	for _, c := range strings.Fields(cpus) {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 {
			return j, fmt.Errorf("loop %q: CPU %q is not a CPU number", s, c)
		}
		j.CPUs = append(j.CPUs, n)
	}
	for _, kv := range strings.Fields(rest) {
		key, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return j, fmt.Errorf("loop %q: %q is not key=count", s, kv)
		}
		switch key {
		case "work":
			j.Work = n
		case "bytes":
			j.Bytes = n
		default:
			return j, fmt.Errorf("loop %q: unknown key %q", s, key)
		}
	}
	if len(j.CPUs) == 0 {
		return j, fmt.Errorf("loop %q runs on no CPU", s)
	}
	return j, nil
}

// maxRecordCPUs bounds the topology a record may list.
const maxRecordCPUs = 4096

// shapeTopology rebuilds the machine of a record that lists no topology from
// its profile, loaded as calibrate loaded it.
func shapeTopology(profile string) (Topology, error) {
	p, err := scenarios.LoadProfile(fstest.MapFS{"host.toml": {Data: []byte(profile)}}, "host.toml")
	if err != nil {
		return Topology{}, fmt.Errorf("the record has no topology, and its profile does not load: %w", err)
	}
	return topologyOf(p), nil
}

// headerProvenance reads the provenance back from a profile's header, as
// Provenance.lines writes it.
func headerProvenance(profile string) Provenance {
	var p Provenance
	plain := map[string]*string{"cpuid": &p.CPUID, "kernel": &p.Kernel, "hypervisor": &p.Hypervisor,
		"load average when measuring started": &p.Load, "scheduling": &p.Sched, "effort": &p.Effort}
	for _, l := range strings.Split(profile, "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "# "), ": ")
		if !ok || !strings.HasPrefix(l, "# ") || v == "unknown" {
			continue
		}
		switch k {
		case "cpu":
			p.CPU, p.MHz, _ = strings.Cut(v, " (")
			p.MHz, _, _ = strings.Cut(p.MHz, " MHz")
		case "date":
			p.Date, _ = time.Parse(time.RFC3339, v)
		case "tool":
			p.Tool, p.Go, _ = strings.Cut(v, ", ")
		default:
			if f, ok := plain[k]; ok {
				*f = v
			}
		}
	}
	return p
}
