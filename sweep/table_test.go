package sweep

import (
	"testing"

	"contend/models"
)

// noteOf tells a run too short for one packet from CPUs that waited: by the
// share of their time spent spinning or asleep, against results made here.
func TestNoteOf(t *testing.T) {
	flood := []models.CoreResult{{CPU: 0, Role: "flood"}}
	for _, c := range []struct {
		name string
		r    models.Result
		want note
	}{
		{"packets", models.Result{Packets: 1, Cores: flood}, noteNone},
		{"no flood CPU", models.Result{Cores: []models.CoreResult{{Role: "batch"}}}, noteNone},
		{"working", models.Result{Cores: flood, Profile: []models.LabelResult{{WorkNs: 90, SpinNs: 10}}}, noteTooShort},
		{"spinning", models.Result{Cores: flood, Profile: []models.LabelResult{{WorkNs: 10, SpinNs: 60, SleepNs: 30}}}, noteWaiting},
		{"few packets", models.Result{Packets: 5, Halves: []uint64{2, 3}, Cores: flood}, noteUnsteady},
		{"settled", models.Result{Packets: 1000, Halves: []uint64{500, 500}, Cores: flood}, noteNone},
		{"drifting", models.Result{Packets: 1000, Halves: []uint64{300, 700}, Cores: flood}, noteUnsteady},
	} {
		if got := noteOf(&c.r); got != c.want {
			t.Errorf("%s: note %v, want %v", c.name, got, c.want)
		}
	}
}

// A replication with no figure outweighs one whose figure had not settled,
// which outweighs one that settled, whichever comes first.
func TestGraver(t *testing.T) {
	for _, c := range [][3]note{
		{noteNone, noteUnsteady, noteUnsteady},
		{noteUnsteady, noteNone, noteUnsteady},
		{noteUnsteady, noteTooShort, noteTooShort},
		{noteTooShort, noteUnsteady, noteTooShort},
		{noteWaiting, noteUnsteady, noteWaiting},
		{noteTooShort, noteWaiting, noteWaiting},
	} {
		if got := graver(c[0], c[1]); got != c[2] {
			t.Errorf("graver(%v, %v) = %v, want %v", c[0], c[1], got, c[2])
		}
	}
}
