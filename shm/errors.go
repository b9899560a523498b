package shm

import "errors"

// Sentinels for the ways attaching to or reading from a region can fail. Each
// failure wraps exactly one of them so callers can tell them apart with
// errors.Is.
var (
	ErrBadMagic  = errors.New("shm: not a hympi region (bad magic)")
	ErrVersion   = errors.New("shm: region layout version mismatch")
	ErrChecksum  = errors.New("shm: region header checksum mismatch")
	ErrLayout    = errors.New("shm: region header describes an impossible layout")
	ErrTooSmall  = errors.New("shm: region file is smaller than its header says")
	ErrNoSpace   = errors.New("shm: not enough free space for the shared region")
	ErrConfig    = errors.New("shm: invalid configuration")
	ErrCorrupt   = errors.New("shm: corrupt data in the shared region")
	ErrBadDesc   = errors.New("shm: invalid descriptor")
	ErrNotRegion = errors.New("shm: descriptor is not a region file")
	ErrArenaFull = errors.New("shm: no room left for another channel in the region")
)
