package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// maxPartialLine bounds how much of an unterminated line is held for a
// rank: a program that writes megabytes without a newline gets its output
// cut into tagged pieces rather than buffered without limit.
const maxPartialLine = 64 << 10

// output owns everything written to hympirun's stdout and stderr: the
// ranks' output and hympirun's own messages. One lock serialises all of it,
// so a line from one rank is never spliced into another's, even when stdout
// and stderr are the same file.
type output struct {
	stdout, stderr io.Writer
	tag            string // tagNone, tagOMPI or tagMPICH
	stamp          bool   // --timestamp-output
	dir            string // --output-filename, "" for none
	nranks         int

	mu sync.Mutex // serialises writes to stdout and stderr

	copiers sync.WaitGroup
	readers []*os.File // launcher ends of the pipes, closed by drain
}

func newOutput(stdout, stderr io.Writer, o *options) *output {
	return &output{stdout: stdout, stderr: stderr, tag: o.tag, stamp: o.timestamp, dir: o.outputDir, nranks: o.n}
}

// println writes one line to stderr as it is, for reports that follow
// another MPI's format rather than hympirun's own.
func (o *output) println(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	io.WriteString(o.stderr, line+"\n")
}

// printf writes one hympirun message line to stderr.
func (o *output) printf(format string, args ...any) {
	line := fmt.Sprintf("hympirun: "+format+"\n", args...)
	o.mu.Lock()
	defer o.mu.Unlock()
	io.WriteString(o.stderr, line)
}

func (o *output) write(w io.Writer, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	// An error here (say, a closed terminal) must not stop the copy: the
	// rank would then block on a full pipe. The output is lost either way.
	w.Write(p)
}

// streams returns the files a rank writes its stdout and stderr to. The
// returned closers are the launcher's copies of the child's ends, to close
// once the child is started.
//
// Untagged output to real files goes straight to them: no copy, no
// reordering, and a rank that writes a lot costs hympirun nothing.
// Otherwise each stream gets a pipe and a goroutine that copies it.
func (o *output) streams(rank int) (stdout, stderr *os.File, closers []*os.File, err error) {
	stdout, c1, err := o.stream(rank, "stdout", o.stdout)
	if err != nil {
		return nil, nil, nil, err
	}
	stderr, c2, err := o.stream(rank, "stderr", o.stderr)
	if err != nil {
		if c1 != nil {
			c1.Close()
		}
		return nil, nil, nil, err
	}
	for _, c := range []*os.File{c1, c2} {
		if c != nil {
			closers = append(closers, c)
		}
	}
	return stdout, stderr, closers, nil
}

func (o *output) stream(rank int, name string, dst io.Writer) (child, closer *os.File, err error) {
	lines := o.tag != tagNone || o.stamp
	if f, ok := dst.(*os.File); ok && !lines && o.dir == "" {
		return f, nil, nil
	}
	var file *os.File
	if o.dir != "" {
		if file, err = o.createFile(rank, name); err != nil {
			return nil, nil, err
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		if file != nil {
			file.Close()
		}
		return nil, nil, fmt.Errorf("creating %s pipe: %w", name, err)
	}
	o.readers = append(o.readers, r)
	var sink interface {
		io.Writer
		flush()
	}
	if lines {
		sink = &lineTagger{out: o, dst: dst, prefix: o.prefix(rank, name), stamp: o.stamp}
	} else {
		sink = rawCopier{out: o, dst: dst}
	}
	var src io.Reader = r
	if file != nil {
		// The file gets the output untagged, as Open MPI writes it.
		src = io.TeeReader(r, lenient{file})
	}
	o.copiers.Add(1)
	go func() {
		defer o.copiers.Done()
		io.Copy(sink, src)
		sink.flush()
		if file != nil {
			file.Close()
		}
	}()
	return w, w, nil
}

// prefix is the tag of each line of a rank's stream: Open MPI's
// [1,RANK]<stdout>: (the 1 is the job number), MPICH's "[RANK] ", or
// Open MPI's <stdout>: alone after a timestamp.
func (o *output) prefix(rank int, name string) []byte {
	switch {
	case o.tag == tagOMPI:
		return fmt.Appendf(nil, "[1,%d]<%s>:", rank, name)
	case o.tag == tagMPICH:
		return fmt.Appendf(nil, "[%d] ", rank)
	case o.stamp:
		return fmt.Appendf(nil, "<%s>:", name)
	}
	return nil
}

// createFile creates DIR/1/rank.N/NAME in Open MPI's layout, N padded with
// zeros to the width of the number of ranks.
func (o *output) createFile(rank int, name string) (*os.File, error) {
	width := len(strconv.Itoa(o.nranks))
	dir := filepath.Join(o.dir, "1", fmt.Sprintf("rank.%0*d", width, rank))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--output-filename: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("--output-filename: %w", err)
	}
	return f, nil
}

// drain waits until every copied stream reached end of file, at most
// limit. Normally that is at once, since all ranks have exited; a
// descendant a rank left running may still hold a pipe open, and hympirun
// must not wait on it forever.
func (o *output) drain(limit time.Duration) {
	done := make(chan struct{})
	go func() {
		o.copiers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		// Closing the read ends wakes the copiers with an error; each then
		// flushes what it holds.
		for _, r := range o.readers {
			r.Close()
		}
		<-done
	}
	for _, r := range o.readers {
		r.Close()
	}
}

// rawCopier forwards bytes unchanged (untagged output when the destination
// is not a file).
type rawCopier struct {
	out *output
	dst io.Writer
}

func (c rawCopier) Write(p []byte) (int, error) {
	c.out.write(c.dst, p)
	return len(p), nil
}

func (rawCopier) flush() {}

// lineTagger prefixes every line of one rank's stream. It writes only whole
// lines, each batch in one locked write, and holds an unterminated tail
// until its newline arrives or the stream ends.
type lineTagger struct {
	out     *output
	dst     io.Writer
	prefix  []byte
	stamp   bool   // each line starts with the time it is forwarded
	partial []byte // start of a line whose newline has not arrived
	batch   []byte // reused between writes
}

func (l *lineTagger) Write(p []byte) (int, error) {
	n := len(p)
	l.batch = l.batch[:0]
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = append(l.partial, p...)
			if len(l.partial) >= maxPartialLine {
				l.batch = l.line(l.batch, nil)
			}
			break
		}
		l.batch = l.line(l.batch, p[:i+1])
		p = p[i+1:]
	}
	if len(l.batch) > 0 {
		l.out.write(l.dst, l.batch)
	}
	return n, nil
}

// line appends prefix + held partial + rest to buf; rest ends in a newline,
// or is nil to cut the held partial line short.
func (l *lineTagger) line(buf, rest []byte) []byte {
	if l.stamp {
		// ctime(3)'s form, as Open MPI prints it.
		buf = time.Now().AppendFormat(buf, "Mon Jan _2 15:04:05 2006")
	}
	buf = append(buf, l.prefix...)
	buf = append(buf, l.partial...)
	if rest == nil {
		buf = append(buf, '\n')
	} else {
		buf = append(buf, rest...)
	}
	l.partial = l.partial[:0]
	return buf
}

// flush emits an unterminated last line, newline added, so that the tag of
// whatever is printed next starts a line.
func (l *lineTagger) flush() {
	if len(l.partial) > 0 {
		l.out.write(l.dst, l.line(nil, nil))
	}
}

// lenient drops write errors: a full disk under --output-filename must not
// stop the copy to the terminal, or the rank would block on a full pipe.
type lenient struct{ w io.Writer }

func (l lenient) Write(p []byte) (int, error) {
	l.w.Write(p)
	return len(p), nil
}
