package scenarios

// The raw file, as decoded from TOML. Field names are the keys users write.

type fileRaw struct {
	Name        string                `toml:"name"`
	Description string                `toml:"description"`
	Include     []string              `toml:"include"`
	Profile     map[string]profileRaw `toml:"profile"`
	Kernel      *kernelRaw            `toml:"kernel"`
	Params      map[string]any        `toml:"params"`
	Line        []lineRaw             `toml:"line"`
	Lock        []lockRaw             `toml:"lock"`
	Block       map[string][]stepRaw  `toml:"block"`
	Variant     []variantRaw          `toml:"variant"`
	Workload    *workloadRaw          `toml:"workload"`
	Run         *runRaw               `toml:"run"`
	Sweep       map[string]any        `toml:"sweep"` // axis: numbers; placement: names
	Axes        map[string]string     `toml:"axes"`  // the scenario's own axis names: "cpus" or "ops"
	Series      []seriesRaw           `toml:"series"`

	// origin says which included file defined what, for errors: keys are
	// "profile.NAME", "params.NAME", "block.NAME", "kernel", "line[i]" and
	// "lock[i]" (i indexes the merged list). Absent: the file itself.
	origin map[string]*locator
}

type profileRaw struct {
	Description      string   `toml:"description"`
	Source           string   `toml:"source"`
	GHz              *float64 `toml:"ghz"`
	Sockets          *int     `toml:"sockets"`
	CoresPerSocket   *int     `toml:"cores_per_socket"`
	ThreadsPerCore   *int     `toml:"threads_per_core"`
	CoresPerLLC      *int     `toml:"cores_per_llc"`
	L1Hit            string   `toml:"l1_hit"`
	LLCHit           string   `toml:"llc_hit"`
	SMTSibling       string   `toml:"smt_sibling"`
	SameSocket       string   `toml:"same_socket"`
	OtherLLC         string   `toml:"other_llc"`
	OtherSocket      string   `toml:"other_socket"`
	Memory           string   `toml:"memory"`
	Atomic           string   `toml:"atomic"`
	AtomicOverlap    *float64 `toml:"atomic_overlap"`
	MissOverlap      *float64 `toml:"miss_overlap"`
	RunAhead         *float64 `toml:"run_ahead"`
	ReorderReach     *float64 `toml:"reorder_reach"` // cycles
	Wakeup           string   `toml:"wakeup"`
	StoreDrain       string   `toml:"store_drain"`
	LoadAfterAtomic  string   `toml:"load_after_atomic"`  // when a load of the word an atomic wrote returns, after the atomic
	StoreAfterAtomic string   `toml:"store_after_atomic"` // when a store to the line an atomic wrote commits, after the atomic
	StoreBuffer      *int     `toml:"store_buffer"`
	Pause            string   `toml:"pause"`
	SpinClear        string   `toml:"spin_clear"` // what a tight spinner pays when its SMT sibling writes its line
	LLCOccupancy     string   `toml:"llc_occupancy"`
	Jitter           string   `toml:"jitter"`
	CV               *float64 `toml:"cv"`
	Snoop            *float64 `toml:"snoop"`
	SnoopWindow      string   `toml:"snoop_window"`  // how long an owner keeps a line being taken (replaces snoop)
	LoadModified     string   `toml:"load_modified"` // "share" (the owner keeps a copy) or "migrate" (the reader takes the line)
	Coherence        string   `toml:"coherence"`     // "mesif" (the LLC serves shared lines) or "moesi" (their owner does)
}

type kernelRaw struct {
	Version             string `toml:"version"`
	HZ                  *int   `toml:"hz"`
	NrCPUIDs            *int   `toml:"nr_cpu_ids"`
	JiffiesTillFirstFQS *int   `toml:"jiffies_till_first_fqs"`
	JiffiesTillNextFQS  *int   `toml:"jiffies_till_next_fqs"`
	JiffiesToSchedQS    *int   `toml:"jiffies_to_sched_qs"`
	SoftirqQS           *bool  `toml:"softirq_qs"`
	Expedited           *bool  `toml:"expedited"`
	IPI                 string `toml:"ipi"`
	WakeFromGP          *bool  `toml:"wake_from_gp"`
	UseSoftirq          *bool  `toml:"use_softirq"`
	FastNoHZ            *bool  `toml:"fast_no_hz"`
	Lazy                *bool  `toml:"lazy"`
	KfreeBatch          *bool  `toml:"kfree_batch"`
	// What makes grace periods last and vary (models.Kernel): each
	// version's preset turns timer_wheel, node_walk and kthread_cpu on.
	TimerWheel     *bool    `toml:"timer_wheel"`
	NodeWalk       *bool    `toml:"node_walk"`
	IdleWakeups    *float64 `toml:"idle_wakeups"`     // per second per idle CPU
	IdleWakeupTime string   `toml:"idle_wakeup_time"` // how long each keeps it awake
	NOCB           *bool    `toml:"nocb"`             // CONFIG_RCU_NOCB_CPU, every CPU offloaded
	KthreadCPU     *bool    `toml:"kthread_cpu"`      // the grace-period kthread runs on the machine's last CPU
	SkewTick       *bool    `toml:"skew_tick"`        // the skew_tick=1 boot parameter
	TimerPull      *bool    `toml:"timer_pull"`       // the hierarchical timer pull model (6.9 on: the presets from 6.12)
	KthreadQS      *bool    `toml:"kthread_qs"`       // rcu_gp_init reports the kthread's CPU (posted 2026-01-01; no preset)
}

type lineRaw struct {
	Name   string `toml:"name"`
	PerCPU bool   `toml:"percpu"`
	// PercpuCounter makes a per-cpu line a percpu_counter's deltas, folded
	// into the count on this shared line every Batch (default Linux's).
	PercpuCounter string `toml:"percpu_counter"`
	Batch         *int64 `toml:"batch"`
	// PercpuRef makes a per-cpu line a percpu_ref's counters, its atomic
	// count on this shared line.
	PercpuRef string `toml:"percpu_ref"`
	// PerLine makes a per-cpu line an array of per-thread elements packed
	// PerLine to a cache line (struct lock_stress_stats lwsa[], 16 bytes
	// each): the workload's threads i and j share a line when i/PerLine
	// equals j/PerLine, and each line moves between them as a shared
	// line does. 0 or 1: one line per CPU, never transferred.
	PerLine int    `toml:"per_line"`
	Note    string `toml:"note"`
}

type lockRaw struct {
	Name    string `toml:"name"`
	Kind    string `toml:"kind"`    // ticket, qspinlock, cna, mcs, tas, ttas, rwlock, mutex, rw_semaphore, percpu_rw_semaphore
	Line    string `toml:"line"`    // a spinlock's word lives on this line, beside its data
	Backoff string `toml:"backoff"` // a ticket lock's wait per ticket ahead before reading again
	Claim   string `toml:"claim"`   // qspinlock: how the queue head takes the lock, "store" or "cmpxchg"
	// PrefetchNext, for a qspinlock or cna: the new queue head prefetchw()es
	// its successor's node while it waits on the word (Linux 4.5 on, the
	// default); false for 4.2 to 4.4.
	PrefetchNext *bool  `toml:"prefetch_next"`
	Acquire      string `toml:"acquire_label"`
	Release      string `toml:"release_label"`
	Note         string `toml:"note"`
}

// stepRaw is one step: exactly one of the operation keys is set.
type stepRaw struct {
	Compute       string    `toml:"compute"`
	Load          string    `toml:"load"`
	Store         string    `toml:"store"`
	RMW           string    `toml:"rmw"`
	PingPong      string    `toml:"pingpong"`      // take turns with a ball on a line, by CAS
	PingPongRead  string    `toml:"pingpong_read"` // the same, waiting with loads and passing by CAS
	SmpMb         bool      `toml:"smp_mb"`        // a full barrier: waits for the store buffer to drain
	Lock          string    `toml:"lock"`
	Unlock        string    `toml:"unlock"`
	ReadLock      string    `toml:"read_lock"`
	ReadUnlock    string    `toml:"read_unlock"`
	WriteLock     string    `toml:"write_lock"`
	WriteUnlock   string    `toml:"write_unlock"`
	MutexLock     string    `toml:"mutex_lock"`
	MutexUnlock   string    `toml:"mutex_unlock"`
	RCUReadLock   bool      `toml:"rcu_read_lock"`
	RCUReadUnlock bool      `toml:"rcu_read_unlock"`
	SyncRCU       bool      `toml:"synchronize_rcu"`
	CallRCU       *int64    `toml:"call_rcu"`       // bytes freed after a grace period
	QueueRCUWork  *int64    `toml:"queue_rcu_work"` // bytes freed by a kworker after a grace period
	KfreeRCU      *int64    `toml:"kfree_rcu"`      // bytes freed after a grace period, batched as [kernel] says
	Sleep         string    `toml:"sleep"`
	Scan          string    `toml:"scan"`           // cost per item already inserted
	OncePerJiffy  string    `toml:"once_per_jiffy"` // "percpu" or a line
	Steps         []stepRaw `toml:"steps"`          // body of once_per_jiffy; a call_rcu's callback written in place
	Block         string    `toml:"block"`
	CounterInc    string    `toml:"percpu_counter_inc"` // percpu_counter_add(+1) on a percpu_counter's per-cpu line
	CounterDec    string    `toml:"percpu_counter_dec"` // percpu_counter_add(-1)
	Callback      string    `toml:"callback"`           // call_rcu: the block its callback runs, in softirq on the calling CPU
	Free          string    `toml:"free"`               // kfree_rcu: what the kworker spends freeing this call's objects
	Label         string    `toml:"label"`
	// Independent says a load's address does not come from the loads
	// before it (lwsp->n_lock_acquired after a load of a global): it asks
	// for its line while an earlier load waits for its own.
	Independent bool `toml:"independent"`

	// The cmpxchg loop and the steps built on it (steps_cmpxchg.go).
	Cmpxchg           string `toml:"cmpxchg"`              // a cmpxchg loop on a line's word
	LockrefGet        string `toml:"lockref_get"`          // lockref_get on a spinlock's lockref
	LockrefGetNotDead string `toml:"lockref_get_not_dead"` // lockref_get_not_dead
	LockrefPutReturn  string `toml:"lockref_put_return"`   // lockref_put_return
	Retries           *int   `toml:"retries"`              // cmpxchg: attempts before the fallback
	Fallback          string `toml:"fallback"`             // cmpxchg, lockref_put_return: the block run when the loop gives up
	Relax             bool   `toml:"relax"`                // cmpxchg, lockref: cpu_relax() after a cmpxchg that failed

	// Sequence counters and seqlocks (steps_seqlock.go).
	WriteSeqcountBegin string `toml:"write_seqcount_begin"` // a seqcount on a line
	WriteSeqcountEnd   string `toml:"write_seqcount_end"`
	ReadSeqcount       string `toml:"read_seqcount"`   // a read section: steps, retried while a writer came
	WriteSeqlock       string `toml:"write_seqlock"`   // a spinlock and the seqcount on its line
	WriteSequnlock     string `toml:"write_sequnlock"` //
	ReadSeqbegin       string `toml:"read_seqbegin"`   // a seqlock's read section: steps

	// refcount_t and percpu_ref (steps_refcount.go).
	RefcountInc         string `toml:"refcount_inc"`          // a refcount_t on a line
	RefcountDecAndTest  string `toml:"refcount_dec_and_test"` // steps: the caller's free, run at zero
	RefcountIncNotZero  string `toml:"refcount_inc_not_zero"` // steps: run when it gives up at zero
	PercpuRefGet        string `toml:"percpu_ref_get"`        // a percpu_ref's per-cpu line
	PercpuRefPut        string `toml:"percpu_ref_put"`
	PercpuRefTrygetLive string `toml:"percpu_ref_tryget_live"` // steps: run holding the reference taken
	PercpuRefKill       string `toml:"percpu_ref_kill"`

	// The rw_semaphore (kind = "rw_semaphore").
	DownRead  string `toml:"down_read"`
	UpRead    string `toml:"up_read"`
	DownWrite string `toml:"down_write"`
	UpWrite   string `toml:"up_write"`

	// SRCU on an srcu_struct's line, and the RCU Tasks Trace read side.
	SRCUReadLock       string `toml:"srcu_read_lock"`
	SRCUReadUnlock     string `toml:"srcu_read_unlock"`
	SynchronizeSRCU    string `toml:"synchronize_srcu"`
	CallSRCU           string `toml:"call_srcu"`
	RCUReadLockTrace   bool   `toml:"rcu_read_lock_trace"`
	RCUReadUnlockTrace bool   `toml:"rcu_read_unlock_trace"`

	// The percpu_rw_semaphore (kind = "percpu_rw_semaphore").
	PercpuDownRead  string `toml:"percpu_down_read"`
	PercpuUpRead    string `toml:"percpu_up_read"`
	PercpuDownWrite string `toml:"percpu_down_write"`
	PercpuUpWrite   string `toml:"percpu_up_write"`
}

type variantRaw struct {
	Name        string    `toml:"name"`
	Description string    `toml:"description"`
	Steps       []stepRaw `toml:"steps"`
}

type workloadRaw struct {
	Kind         string   `toml:"kind"` // flood, batch, both
	Cores        *int     `toml:"cores"`
	Rate         *float64 `toml:"rate"`
	Ring         *int     `toml:"ring"`
	BatchOps     *int64   `toml:"batch_ops"`
	BatchCPU     *int     `toml:"batch_cpu"`
	InitialItems *int64   `toml:"initial_items"`
	BatchVariant string   `toml:"batch_variant"`
	FloodVariant string   `toml:"flood_variant"`
	CPUs         string   `toml:"cpus"`       // the flood's CPUs, as Linux lists them: "0-3,8-11"
	Placement    string   `toml:"placement"`  // smt-last (default), compact or spread
	Unit         string   `toml:"unit"`       // what one program run is: packet (default), op, call...
	BatchUnit    string   `toml:"batch_unit"` // kind = "both": what one run of the batch's program is (default op)
	Spin         string   `toml:"spin"`       // how spin loops wait: pause (default, cpu_relax) or tight
}

type runRaw struct {
	Warmup       string `toml:"warmup"`
	Duration     string `toml:"duration"`
	Limit        string `toml:"limit"`
	Seed         *int64 `toml:"seed"`
	Replications *int   `toml:"replications"`
	MaxEvents    *int64 `toml:"max_events"`
}

type seriesRaw struct {
	Name        string         `toml:"name"`
	Description string         `toml:"description"`
	Profile     string         `toml:"profile"`
	Variants    []string       `toml:"variants"`
	Params      map[string]any `toml:"params"`
	Free        []string       `toml:"free"`
	Axis        string         `toml:"axis"`
	Points      []float64      `toml:"points"`
	Placement   string         `toml:"placement"` // where this machine ran the threads, if not the workload's
	Base        string         `toml:"base"`      // the variant the others change: validate shows each change against it
	Reference   []referenceRaw `toml:"reference"`
}

type referenceRaw struct {
	Scenario string   `toml:"scenario"` // published id, when it differs from the series name
	Variant  string   `toml:"variant"`
	Axis     string   `toml:"axis"`
	X        *float64 `toml:"x"`
	Metric   string   `toml:"metric"`
	Value    *float64 `toml:"value"`
	Unit     string   `toml:"unit"`
	Role     string   `toml:"role"`
	Source   string   `toml:"source"`
}
