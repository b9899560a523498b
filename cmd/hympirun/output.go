package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
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
	tag            bool

	mu sync.Mutex // serialises writes to stdout and stderr

	copiers sync.WaitGroup
	readers []*os.File // launcher ends of the pipes, closed by drain
}

func newOutput(stdout, stderr io.Writer, tag bool) *output {
	return &output{stdout: stdout, stderr: stderr, tag: tag}
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
	if f, ok := dst.(*os.File); ok && !o.tag {
		return f, nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("creating %s pipe: %w", name, err)
	}
	o.readers = append(o.readers, r)
	var sink interface {
		io.Writer
		flush()
	}
	if o.tag {
		sink = &lineTagger{out: o, dst: dst, prefix: fmt.Appendf(nil, "[1,%d]<%s>: ", rank, name)}
	} else {
		sink = rawCopier{out: o, dst: dst}
	}
	o.copiers.Add(1)
	go func() {
		defer o.copiers.Done()
		io.Copy(sink, r)
		sink.flush()
	}()
	return w, w, nil
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
