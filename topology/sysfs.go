package topology

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// EnvSysfs names the environment variable that moves the sysfs root Default
// reads (a public name), so tests and hympi-info can point at a fixture tree.
const EnvSysfs = "HYMPI_SYSFS"

// DefaultSysfsRoot is the sysfs root when EnvSysfs is unset or empty.
const DefaultSysfsRoot = "/sys"

// CPUInfoPath is where Default reads the CPU model name, for the profile
// fingerprint. It is read only when the sysfs root is the live one.
const CPUInfoPath = "/proc/cpuinfo"

// Cache types as sysfs writes them in cache/indexK/type.
const (
	CacheData        = "Data"
	CacheInstruction = "Instruction"
	CacheUnified     = "Unified"
)

// Machine is the topology of the online CPUs, as read from sysfs.
type Machine struct {
	// CPUs holds the online CPUs, ascending by ID (methods rely on the
	// order).
	CPUs []CPU
	// Nodes holds the NUMA nodes, ascending by ID; a tree without
	// devices/system/node yields one node 0 holding every CPU.
	Nodes []Node
	// Model is the CPU model name from /proc/cpuinfo, or "" when unknown
	// (always "" for a tree read with Read: /proc is not part of it).
	Model string
	// Root is the sysfs root the machine was read from.
	Root string
}

// CPU is one online logical CPU (hardware thread).
type CPU struct {
	ID int
	// Package is physical_package_id (the socket); 0 when the file is
	// missing. The kernel writes -1 where it cannot tell; that is kept.
	Package int
	// Core is core_id, unique only within a package; the CPU's own ID when
	// the file is missing (every CPU its own core).
	Core int
	// Siblings are the hardware threads of this CPU's core, itself
	// included, ascending: thread_siblings_list, or the online CPUs with the
	// same Package and Core when that file is missing.
	Siblings []int
	// Caches are the CPU's caches in index order; empty when the cache
	// directory is missing.
	Caches []Cache
	// Node is the NUMA node holding the CPU, or -1 if no node lists it.
	Node int
}

// Cache is one cache as seen from one CPU (cache/indexK).
type Cache struct {
	Level int    // 1, 2, 3…; 0 when the level file is missing
	Type  string // CacheData, CacheInstruction, CacheUnified; "" when missing
	Size  int    // bytes; 0 when the size file is missing
	// SharedCPUs are the CPUs sharing this cache, ascending, the owning CPU
	// included (shared_cpu_list; just the owning CPU when missing).
	SharedCPUs []int
}

// HoldsData reports whether the cache holds data (a data or unified cache),
// the only kind that makes two CPUs "shared-cache". A cache of unknown type
// does not count: two cores can share an instruction cache (AMD Bulldozer
// modules did), and sharing one says nothing about where a message lands.
func (c Cache) HoldsData() bool { return c.Type == CacheData || c.Type == CacheUnified }

// Node is one NUMA node and its online CPUs.
type Node struct {
	ID   int
	CPUs []int
}

// Lookup returns the CPU with the given ID, or nil if it is not online in m.
func (m *Machine) Lookup(id int) *CPU {
	i, ok := slices.BinarySearchFunc(m.CPUs, id, func(c CPU, id int) int { return c.ID - id })
	if !ok {
		return nil
	}
	return &m.CPUs[i]
}

// IDs returns the IDs of the online CPUs, ascending.
func (m *Machine) IDs() []int {
	ids := make([]int, len(m.CPUs))
	for i, c := range m.CPUs {
		ids[i] = c.ID
	}
	return ids
}

// Packages returns the distinct package IDs, ascending.
func (m *Machine) Packages() []int {
	var p []int
	for _, c := range m.CPUs {
		p = append(p, c.Package)
	}
	slices.Sort(p)
	return slices.Compact(p)
}

// Cores returns the physical cores, each as its online hardware threads
// ascending, ordered by first thread.
func (m *Machine) Cores() [][]int {
	var cores [][]int
	for i := range m.CPUs {
		if threads := m.CPUs[i].onlineSiblings(m); threads[0] == m.CPUs[i].ID {
			cores = append(cores, threads)
		}
	}
	return cores
}

// onlineSiblings returns c's online hardware threads, c included.
func (c *CPU) onlineSiblings(m *Machine) []int {
	var on []int
	for _, s := range c.Siblings {
		if s == c.ID || m.Lookup(s) != nil {
			on = append(on, s)
		}
	}
	if !slices.Contains(on, c.ID) { // a Machine built without Siblings
		on = append(on, c.ID)
		slices.Sort(on)
	}
	return on
}

var defaultMachine = sync.OnceValues(func() (*Machine, error) {
	root := os.Getenv(EnvSysfs)
	if root == "" {
		root = DefaultSysfsRoot
	}
	m, err := Read(root)
	if err != nil {
		return nil, err
	}
	if filepath.Clean(root) == DefaultSysfsRoot {
		m.Model, _ = ReadModel(CPUInfoPath) // the fingerprint copes with ""
	}
	return m, nil
})

// Default returns the machine read from $HYMPI_SYSFS (default /sys), with
// the model name from /proc/cpuinfo when the root is the live /sys. It is
// read once per process; the result is shared and must not be modified.
func Default() (*Machine, error) { return defaultMachine() }

// Read reads the topology under the sysfs tree at root:
//
//	devices/system/cpu/online (or present; or the cpuN directories)
//	devices/system/cpu/cpuN/topology/{physical_package_id,core_id,thread_siblings_list}
//	devices/system/cpu/cpuN/cache/indexK/{level,type,size,shared_cpu_list}
//	devices/system/node/nodeK/cpulist
//
// Only the list of CPUs is required. A missing file takes the default its
// field documents (no cache directory: no caches, so no CPU pair is
// "shared-cache"; no node directory: one node). A file that exists but does
// not parse is an error naming the file.
func Read(root string) (*Machine, error) {
	return read(os.DirFS(root), root)
}

// ReadFS is Read for a tree held in fsys (rooted at its top); root names
// the tree in Machine.Root and in errors. Tests read generated trees from
// memory with it.
func ReadFS(fsys fs.FS, root string) (*Machine, error) {
	return read(fsys, root)
}

// reader reads one tree; errors name files as root/name.
type reader struct {
	fsys fs.FS
	root string
}

// file returns the trimmed contents of name, ok=false if it does not exist.
func (r reader) file(name string) (s string, ok bool, err error) {
	b, err := fs.ReadFile(r.fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, r.err(name, err)
	}
	return string(bytes.TrimSpace(b)), true, nil
}

// err reports a file that could not be read, naming it under the root.
func (r reader) err(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // fs.FS names it relative to the root; name it once, in full
	}
	return &fs.PathError{Op: "topology: read", Path: r.path(name), Err: err}
}

// bad reports a file whose contents do not parse.
func (r reader) bad(name string, err error) error {
	return &fs.PathError{Op: "topology: parse", Path: r.path(name), Err: err}
}

func (r reader) path(name string) string { return filepath.Join(r.root, filepath.FromSlash(name)) }

// cpuList reads an optional cpu list file.
func (r reader) cpuList(name string) ([]int, bool, error) {
	s, ok, err := r.file(name)
	if !ok || err != nil {
		return nil, ok, err
	}
	cpus, err := ParseCPUList(s)
	if err != nil {
		return nil, false, r.bad(name, err)
	}
	return cpus, true, nil
}

// integer reads an optional decimal integer file (negative allowed: the
// kernel writes -1 for an unknown package).
func (r reader) integer(name string) (int, bool, error) {
	s, ok, err := r.file(name)
	if !ok || err != nil {
		return 0, ok, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false, r.bad(name, fmt.Errorf("%q is not an integer", s))
	}
	return n, true, nil
}

const cpuDir = "devices/system/cpu"

func read(fsys fs.FS, root string) (*Machine, error) {
	r := reader{fsys: fsys, root: root}
	ids, err := r.onlineCPUs()
	if err != nil {
		return nil, err
	}
	m := &Machine{Root: root, CPUs: make([]CPU, len(ids))}
	for i, id := range ids {
		if m.CPUs[i], err = r.cpu(id); err != nil {
			return nil, err
		}
	}
	fillSiblings(m)
	if err := r.nodes(m); err != nil {
		return nil, err
	}
	return m, nil
}

// onlineCPUs reads cpu/online, else cpu/present, else lists the cpuN
// directories.
func (r reader) onlineCPUs() ([]int, error) {
	for _, name := range []string{cpuDir + "/online", cpuDir + "/present"} {
		ids, ok, err := r.cpuList(name)
		if err != nil {
			return nil, err
		}
		if ok {
			if len(ids) == 0 {
				return nil, r.bad(name, errors.New("no CPUs listed"))
			}
			return ids, nil
		}
	}
	ids, err := r.numberedDirs(cpuDir, "cpu")
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, r.err(cpuDir, errors.New("no online, present or cpuN entries: not a sysfs tree"))
	}
	return ids, nil
}

// numberedDirs returns N for each entry prefixN (N decimal) of dir,
// ascending; nil if dir does not exist.
func (r reader) numberedDirs(dir, prefix string) ([]int, error) {
	entries, err := fs.ReadDir(r.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, r.err(dir, err)
	}
	var ns []int
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
			continue
		}
		if n, err := strconv.Atoi(digits); err == nil {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns, nil
}

func (r reader) cpu(id int) (CPU, error) {
	c := CPU{ID: id, Core: id, Node: -1}
	dir := fmt.Sprintf("%s/cpu%d", cpuDir, id)
	var err error
	if c.Package, _, err = r.integer(dir + "/topology/physical_package_id"); err != nil {
		return c, err
	}
	if core, ok, err := r.integer(dir + "/topology/core_id"); err != nil {
		return c, err
	} else if ok {
		c.Core = core
	}
	if c.Siblings, _, err = r.cpuList(dir + "/topology/thread_siblings_list"); err != nil {
		return c, err
	}
	indexes, err := r.numberedDirs(dir+"/cache", "index")
	if err != nil {
		return c, err
	}
	for _, k := range indexes {
		cache, err := r.cache(fmt.Sprintf("%s/cache/index%d", dir, k), id)
		if err != nil {
			return c, err
		}
		c.Caches = append(c.Caches, cache)
	}
	return c, nil
}

func (r reader) cache(dir string, cpu int) (Cache, error) {
	var c Cache
	var err error
	if c.Level, _, err = r.integer(dir + "/level"); err != nil {
		return c, err
	}
	if c.Type, _, err = r.file(dir + "/type"); err != nil {
		return c, err
	}
	if s, ok, err := r.file(dir + "/size"); err != nil {
		return c, err
	} else if ok {
		if c.Size, err = ParseSize(s); err != nil {
			return c, r.bad(dir+"/size", err)
		}
	}
	if c.SharedCPUs, _, err = r.cpuList(dir + "/shared_cpu_list"); err != nil {
		return c, err
	}
	if !slices.Contains(c.SharedCPUs, cpu) {
		c.SharedCPUs = append(c.SharedCPUs, cpu)
		slices.Sort(c.SharedCPUs)
	}
	return c, nil
}

// fillSiblings makes every CPU's Siblings hold at least itself, deriving
// them from (Package, Core) where thread_siblings_list was missing.
func fillSiblings(m *Machine) {
	for i := range m.CPUs {
		c := &m.CPUs[i]
		if len(c.Siblings) == 0 {
			for _, o := range m.CPUs {
				if o.Package == c.Package && o.Core == c.Core {
					c.Siblings = append(c.Siblings, o.ID)
				}
			}
		}
		if !slices.Contains(c.Siblings, c.ID) {
			c.Siblings = append(c.Siblings, c.ID)
			slices.Sort(c.Siblings)
		}
	}
}

// nodes reads node/nodeK/cpulist; with no node directory (or no nodes in
// it), every CPU is in node 0.
func (r reader) nodes(m *Machine) error {
	const nodeDir = "devices/system/node"
	ids, err := r.numberedDirs(nodeDir, "node")
	if err != nil {
		return err
	}
	for _, id := range ids {
		cpus, _, err := r.cpuList(fmt.Sprintf("%s/node%d/cpulist", nodeDir, id))
		if err != nil {
			return err
		}
		n := Node{ID: id, CPUs: []int{}}
		for _, cpu := range cpus {
			// Offline CPUs are listed too; and a CPU the kernel puts in
			// two nodes (it does not) stays in the first.
			if c := m.Lookup(cpu); c != nil && c.Node < 0 {
				c.Node = id
				n.CPUs = append(n.CPUs, cpu)
			}
		}
		m.Nodes = append(m.Nodes, n)
	}
	if len(m.Nodes) == 0 {
		m.Nodes = []Node{{ID: 0, CPUs: m.IDs()}}
		for i := range m.CPUs {
			m.CPUs[i].Node = 0
		}
	}
	return nil
}

// ParseSize parses a sysfs cache size: a decimal number with an optional
// binary suffix K, M or G (case-insensitive, optionally followed by "iB" or
// "B"), e.g. "32K", "4096K", "30M", "512". It returns bytes.
func ParseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	num := strings.TrimRight(s, "KkMmGgIiBb")
	suffix := strings.ToUpper(s[len(num):])
	shift := 0
	switch suffix {
	case "", "B":
	case "K", "KB", "KIB":
		shift = 10
	case "M", "MB", "MIB":
		shift = 20
	case "G", "GB", "GIB":
		shift = 30
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q", s, s[len(num):])
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, fmt.Errorf("size %q: not a decimal number with a K, M or G suffix", s)
	}
	n, err := strconv.ParseUint(num, 10, 63-shift)
	if err != nil {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return int(n) << shift, nil
}

// ReadModel returns the first "model name" in a /proc/cpuinfo file; "" if
// there is none (as on most ARM kernels).
func ReadModel(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return ParseCPUInfoModel(b), nil
}

// ParseCPUInfoModel returns the value of the first "model name" line of
// /proc/cpuinfo contents, or "".
func ParseCPUInfoModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}
