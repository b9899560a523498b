package mpi

import "unsafe"

// Typed windows: the generic forms of the window calls over slices of one
// element type. A window made by these has a displacement unit of one
// element, so displacements count elements.

func sizeOf[T Numeric]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// WinCreateSlice exposes data as a window of T.
func WinCreateSlice[T Numeric](c *Comm, data []T) (*Win, error) {
	return c.WinCreate(AsBytes(data), sizeOf[T]())
}

// WinAllocateSlice allocates n elements of T per rank; the slice is this
// rank's part.
func WinAllocateSlice[T Numeric](c *Comm, n int) (*Win, []T, error) {
	w, err := c.WinAllocate(n*sizeOf[T](), sizeOf[T]())
	if err != nil {
		return nil, nil, err
	}
	return w, view[T](w.Local()), nil
}

// AllocateShared allocates n elements of T per rank in memory every rank
// maps: the slice is this rank's part, loaded and stored directly.
// SharedSlice views another rank's part.
func AllocateShared[T Numeric](c *Comm, n int) (*Win, []T, error) {
	w, err := c.WinAllocateShared(n*sizeOf[T](), sizeOf[T](), false)
	if err != nil {
		return nil, nil, err
	}
	return w, view[T](w.Local()), nil
}

// SharedSlice is rank r's part of a window whose memory hympi allocated.
func SharedSlice[T Numeric](w *Win, r int) ([]T, error) {
	b, err := w.Shared(r)
	if err != nil {
		return nil, err
	}
	return view[T](b), nil
}

// Put writes data to target's window at element disp.
func Put[T Numeric](w *Win, data []T, target, disp int) error {
	return w.Put(AsBytes(data), target, disp)
}

// Get reads len(data) elements of target's window at disp.
func Get[T Numeric](w *Win, data []T, target, disp int) error {
	return w.Get(AsBytes(data), target, disp)
}

// Accumulate combines data into target's window at disp with op (or
// Replace), atomically per element.
func Accumulate[T Numeric](w *Win, data []T, op Op, target, disp int) error {
	return w.Accumulate(AsBytes(data), TypeOf[T](), op, target, disp)
}

// GetAccumulate is Accumulate returning the previous values in result.
func GetAccumulate[T Numeric](w *Win, data, result []T, op Op, target, disp int) error {
	return w.GetAccumulate(AsBytes(data), AsBytes(result), TypeOf[T](), op, target, disp)
}

// FetchAndOp applies op with v to one element and returns its old value.
func FetchAndOp[T Numeric](w *Win, v T, op Op, target, disp int) (T, error) {
	if err := w.valueNow("FetchAndOp", target); err != nil {
		return 0, err
	}
	in, out := []T{v}, []T{0}
	err := w.FetchAndOp(AsBytes(in), AsBytes(out), TypeOf[T](), op, target, disp)
	return out[0], err
}

// CompareAndSwap stores v at one element if it equals compare and returns
// the element's old value.
func CompareAndSwap[T Numeric](w *Win, v, compare T, target, disp int) (T, error) {
	if err := w.valueNow("CompareAndSwap", target); err != nil {
		return 0, err
	}
	in, cmp, out := []T{v}, []T{compare}, []T{0}
	err := w.CompareAndSwap(AsBytes(in), AsBytes(cmp), AsBytes(out), target, disp)
	return out[0], err
}
