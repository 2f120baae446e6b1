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
	} {
		if got := noteOf(&c.r); got != c.want {
			t.Errorf("%s: note %v, want %v", c.name, got, c.want)
		}
	}
}
