package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// DecodeShard decodes the shard b, read from the file name, strictly.
func DecodeShard(name string, b []byte) (*Shard, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f Shard
	if err := dec.Decode(&f); err != nil || f.Kind != shardKind {
		why := "kind is not " + strconv.Quote(shardKind)
		if err != nil {
			why = err.Error()
		}
		return nil, fmt.Errorf("%s: not a shard of this version of contend (%s); give the files contend sweep --shard I/N wrote", name, why)
	}
	// A second object (two shards pasted into one file) would go unread.
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more follows the shard, from byte %d; a shard file holds one JSON object, as sweep --shard wrote it: merge each shard from its own file", name, end)
	}
	return &f, nil
}

// Merge puts the shards read from files together: the plan of their sweep
// and each point's metrics, for Plan.Tables. It refuses shards that are not
// every slice of one sweep, once, as sweep wrote them.
func Merge(files []string, shards []*Shard) (*Plan, [][]float64, error) {
	widths, err := layout(files[0], shards[0])
	if err != nil {
		return nil, nil, err
	}
	values, err := mergeShards(files, shards, widths)
	if err != nil {
		return nil, nil, err
	}
	// Checked once the shards are known to fit together, so that an error
	// there names what does not fit; no value is printed before.
	for k, f := range shards {
		if f.digest() != f.Digest {
			return nil, nil, fmt.Errorf("%s: its contents do not match its digest: the file was edited after sweep wrote it; sweep that slice again", files[k])
		}
	}
	return &Plan{Scenarios: shards[0].Scenarios, Groups: shards[0].Groups}, values, nil
}

// mergeShards checks that the shards are every slice of one sweep, once,
// and returns each point's metrics.
func mergeShards(files []string, shards []*Shard, widths []int) ([][]float64, error) {
	ref, refName := shards[0], files[0]
	n := ref.Shard.Count
	plan, _ := json.Marshal([]any{ref.Groups, ref.Points})
	owner := make([]string, n)
	values := make([][]float64, len(ref.Points))
	for k, f := range shards {
		name := files[k]
		if err := sameSweep(name, f, refName, ref, plan); err != nil {
			return nil, err
		}
		if f.Shard.Index < 0 || f.Shard.Index >= n {
			return nil, fmt.Errorf("%s: slice %s does not exist; the file was edited, sweep that slice again", name, f.Shard)
		}
		if o := owner[f.Shard.Index]; o != "" {
			return nil, fmt.Errorf("%s and %s are both slice %s: merge one of them", o, name, f.Shard)
		}
		owner[f.Shard.Index] = name
		if err := fill(name, f, values, widths); err != nil {
			return nil, err
		}
	}
	for i, o := range owner {
		if o == "" {
			return nil, fmt.Errorf("slice %d/%d is missing: sweep %s again with the same flags and --shard %d/%d, and merge its file with these", i, n, scenarioArgs(ref), i, n)
		}
	}
	return values, nil
}

// sameSweep checks that shard f (file name) comes from the sweep of ref.
func sameSweep(name string, f *Shard, refName string, ref *Shard, plan []byte) error {
	describe := func(f *Shard) string {
		var parts []string
		for _, s := range f.Scenarios {
			parts = append(parts, fmt.Sprintf("%s (%s, seed %d)", s.Name, s.Hash, s.Seed))
		}
		return strings.Join(parts, ", ")
	}
	if !slices.Equal(f.Scenarios, ref.Scenarios) {
		return fmt.Errorf("%s is a shard of %s but %s of %s: merge only the shards of one sweep, and sweep every slice from the same scenario files, --profile and --seed",
			name, describe(f), refName, describe(ref))
	}
	if f.Seed != ref.Seed || f.Shard.Count != ref.Shard.Count || f.Format != ref.Format {
		return fmt.Errorf("%s was swept with --seed %d --shard %s --format %s but %s with --seed %d --shard %s --format %s: sweep every slice with the same flags",
			name, f.Seed, f.Shard, f.Format, refName, ref.Seed, ref.Shard, ref.Format)
	}
	if p, _ := json.Marshal([]any{f.Groups, f.Points}); !bytes.Equal(p, plan) {
		return fmt.Errorf("%s and %s sweep different points (another --series, or another version of contend): sweep every slice with the same flags and binary", name, refName)
	}
	return nil
}

// fill copies the results of shard f into values, checking that they are
// exactly the points of its slice.
func fill(name string, f *Shard, values [][]float64, widths []int) error {
	want := 0
	for i := range values {
		if f.Shard.has(i) {
			want++
		}
	}
	if len(f.Results) != want {
		return fmt.Errorf("%s: %d results for slice %s, which has %d points; the file is cut short or edited, sweep that slice again", name, len(f.Results), f.Shard, want)
	}
	for _, r := range f.Results {
		if r.Point < 0 || r.Point >= len(values) || !f.Shard.has(r.Point) || values[r.Point] != nil {
			return fmt.Errorf("%s: point %d is not one of slice %s or comes twice; the file was edited, sweep that slice again", name, r.Point, f.Shard)
		}
		if len(r.Values) != widths[r.Point] {
			return fmt.Errorf("%s: point %d has %d values, its group %d metrics and a note; the file was edited, sweep that slice again", name, r.Point, len(r.Values), widths[r.Point]-1)
		}
		vs := make([]float64, len(r.Values))
		for m, v := range r.Values {
			vs[m] = float64(v)
		}
		if n := note(vs[len(vs)-1]); n < noteNone || n > noteUnsteady || float64(n) != vs[len(vs)-1] {
			return fmt.Errorf("%s: point %d has note %v, which is none of %d to %d; the file was edited, sweep that slice again", name, r.Point, vs[len(vs)-1], noteNone, noteUnsteady)
		}
		values[r.Point] = vs
	}
	return nil
}

// layout numbers the points of a shard's groups as Plan.Add does (it sets
// each group's first point) and returns how many metrics each point has.
func layout(name string, f *Shard) ([]int, error) {
	var widths []int
	for g := range f.Groups {
		gr := &f.Groups[g]
		gr.first = len(widths)
		// Counted against the list so that an edited count cannot
		// allocate without bound.
		left := len(f.Points) - len(widths)
		n := len(gr.X) * len(gr.Variants)
		if gr.Replications < 1 || n > left || gr.Replications > left || n*gr.Replications > left {
			return nil, fmt.Errorf("%s: group %d does not match the point list; the file was edited, sweep again", name, g)
		}
		for range n * gr.Replications {
			widths = append(widths, len(gr.Metrics)+1) // and the point's note
		}
	}
	if len(widths) != len(f.Points) || f.Shard.Count < 1 {
		return nil, fmt.Errorf("%s: its groups make %d points but it lists %d (or no slice count); the file was edited, sweep again", name, len(widths), len(f.Points))
	}
	return widths, nil
}

// scenarioArgs names the scenarios of a shard for a command line.
func scenarioArgs(f *Shard) string {
	var names []string
	for _, s := range f.Scenarios {
		names = append(names, s.Name)
	}
	return strings.Join(names, " ")
}
