package shm

// The launcher-to-rank contract. hympirun creates the region, unlinks its
// file at once and hands the open descriptor to every rank; a rank finds its
// place in the job from these variables. A process without them runs as a
// singleton.
const (
	EnvRank     = "HYMPI_RANK"      // this process's rank in the world, 0..size-1
	EnvSize     = "HYMPI_SIZE"      // number of ranks in the job
	EnvRegionFD = "HYMPI_REGION_FD" // inherited descriptor of the (already unlinked) region file
	EnvCPU      = "HYMPI_CPU"       // CPU the launcher bound this rank to, or -1 when unbound
	EnvJobID    = "HYMPI_JOBID"     // job identifier, for diagnostics only
)

// RegionFD is the descriptor number the launcher places the region at in
// every rank (the first entry of exec.Cmd.ExtraFiles).
const RegionFD = 3
