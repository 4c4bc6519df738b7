package exec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// The task folder: MCODE_HOME/tasks/<id>/ holds meta.json (what runs,
// written by the caller), output.log (the raw output, written by the
// owner as it comes), exit (how it ended, written once by the owner) and
// supervisor.log (a supervisor's own errors). meta.json and exit are
// written atomically.
const (
	TasksDir      = "tasks"
	metaFile      = "meta.json"
	outputFile    = "output.log"
	exitFile      = "exit"
	supervisorLog = "supervisor.log"
	// TaskRetention is how long a finished background task is kept.
	TaskRetention = 7 * 24 * time.Hour
	// SpoolRetention is how long the full output of a foreground call
	// (its full_output_path) is kept.
	SpoolRetention = 24 * time.Hour
)

// taskMeta describes a task: written when it starts and when a foreground
// call hands it to the background.
type taskMeta struct {
	ID         string `json:"id"`
	Command    string `json:"command"`
	Cwd        string `json:"cwd"`
	Shell      string `json:"shell"`
	Invocation string `json:"invocation"`
	// Background is false for a foreground call whose folder only keeps
	// its spool; task_list shows background tasks only.
	Background bool `json:"background"`
	// Kind says how it became a task: background (asked for), auto (a
	// foreground call that ran long) or leftovers (kept children).
	Kind            string    `json:"kind"`
	PID             int       `json:"pid"`
	SupervisorPID   int       `json:"supervisor_pid"`
	SupervisorStart uint64    `json:"supervisor_start"`
	StartedAt       time.Time `json:"started_at"`
	TimeoutS        float64   `json:"timeout_s"`
	EnvSanitize     string    `json:"env_sanitize"`
	EnvRemoved      []string  `json:"env_removed"`
}

// Kinds of task.
const (
	KindBackground = "background"
	KindAuto       = "auto"
	KindLeftovers  = "leftovers"
)

func tasksRoot(dataDir string) string { return filepath.Join(dataDir, TasksDir) }

func spoolPath(dir string) string { return filepath.Join(dir, outputFile) }

// newTaskDir creates a fresh task folder with a short unique id. Its path
// is absolute (full_output_path is read from anywhere).
func newTaskDir(dataDir string) (id, dir string, err error) {
	root, err := filepath.Abs(tasksRoot(dataDir))
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", "", err
	}
	for attempt := 0; attempt < 16; attempt++ {
		id = "b" + fsutil.RandomHex(4)
		dir = filepath.Join(root, id)
		err = os.Mkdir(dir, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return id, dir, err
	}
	return "", "", fmt.Errorf("no free task id in %s", root)
}

// removeTaskDir removes a task folder: at once when it is empty (a
// foreground call's folder mostly is), else its known files one by one,
// and whatever else it holds the long way.
func removeTaskDir(dir string) {
	if syscall.Rmdir(dir) == nil {
		return
	}
	for _, name := range [...]string{outputFile, exitFile, supervisorLog, metaFile} {
		_ = os.Remove(filepath.Join(dir, name))
	}
	if os.Remove(dir) != nil {
		_ = os.RemoveAll(dir)
	}
}

func writeMeta(dir string, m taskMeta) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, metaFile), append(data, '\n'), 0o600)
}

// writeRecord writes the exit file. durable fsyncs it: a background task's
// record must outlive a crash; a foreground call's is read at once.
func writeRecord(dir string, rec record, durable bool) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, exitFile)
	if durable {
		return fsutil.WriteFileAtomic(path, append(data, '\n'), 0o600)
	}
	return fsutil.WriteFileAtomicNoSync(path, append(data, '\n'), 0o600)
}

// task is a task folder as read from disk.
type task struct {
	dir    string
	meta   taskMeta
	rec    *record
	status string
	// corrupt says why meta.json could not be read ("" when it could).
	corrupt string
}

// taskNotFound is the error for an unknown id, with the known ones.
func taskNotFound(dataDir, id string) *tool.Error {
	e := &tool.Error{Code: tool.CodeNotFound, Message: fmt.Sprintf("no task %q", id)}
	var ids []string
	for _, t := range listTasks(dataDir) {
		ids = append(ids, t.meta.ID)
	}
	switch {
	case len(ids) == 0:
		e.Hint = "there are no background tasks; start one with mcode bash --background COMMAND"
	case len(ids) > 10:
		e.Hint = "`mcode task list` shows the tasks; the newest: " + strings.Join(ids[:10], ", ")
	default:
		e.Hint = "known tasks: " + strings.Join(ids, ", ")
	}
	return e
}

// validID keeps an id from naming anything outside the tasks folder.
func validID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}

// errNoTask: no task folder with a meta.json of that id.
var errNoTask = errors.New("no such task")

// loadTask reads a task and decides its status; an unknown id is a
// not_found error that lists the known ones.
func loadTask(dataDir, id string) (*task, error) {
	t, err := readTask(dataDir, id)
	if errors.Is(err, errNoTask) {
		return nil, taskNotFound(dataDir, id)
	}
	return t, err
}

func readTask(dataDir, id string) (*task, error) {
	if !validID(id) {
		return nil, errNoTask
	}
	dir := filepath.Join(tasksRoot(dataDir), id)
	data, err := os.ReadFile(filepath.Join(dir, metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoTask
	}
	if err != nil {
		return nil, err
	}
	t := &task{dir: dir}
	err = json.Unmarshal(data, &t.meta)
	switch {
	case err != nil:
		t.corrupt = fmt.Sprintf("its %s is not a task record: %v", metaFile, err)
	case t.meta.ID != id:
		t.corrupt = fmt.Sprintf("its %s names task %q, not %q", metaFile, t.meta.ID, id)
	}
	if t.corrupt != "" {
		// Listed, so that it can be looked at and stopped: its output and
		// its job marker (the id) are all that can be trusted.
		t.meta = taskMeta{ID: id, Background: true}
	}
	t.refresh()
	return t, nil
}

// refresh re-reads the exit file and the supervisor's liveness. A task
// with no exit record whose supervisor is gone is lost; the exit file is
// read again after the liveness check, so a supervisor that wrote it and
// exited in between is not taken for lost.
func (t *task) refresh() {
	if t.corrupt != "" {
		t.rec, t.status = readRecord(t.dir), StatusCorrupt
		return
	}
	if t.rec = readRecord(t.dir); t.rec != nil {
		t.status = t.rec.Status
		return
	}
	if supervisorAlive(t.meta) {
		t.status = StatusRunning
		return
	}
	if t.rec = readRecord(t.dir); t.rec != nil {
		t.status = t.rec.Status
		return
	}
	t.status = StatusLost
}

func readRecord(dir string) *record {
	data, err := os.ReadFile(filepath.Join(dir, exitFile))
	if err != nil {
		return nil
	}
	var rec record
	if json.Unmarshal(data, &rec) != nil {
		return nil
	}
	return &rec
}

func supervisorAlive(m taskMeta) bool {
	if m.SupervisorPID <= 0 {
		return false
	}
	p, ok := proctree.Read(m.SupervisorPID)
	return ok && !p.Dead() && p.Start == m.SupervisorStart
}

// listTasks returns the background tasks, newest first.
func listTasks(dataDir string) []*task {
	entries, err := os.ReadDir(tasksRoot(dataDir))
	if err != nil {
		return nil
	}
	var out []*task
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := readTask(dataDir, e.Name())
		if err != nil || !t.meta.Background {
			continue
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].meta.StartedAt.After(out[b].meta.StartedAt) })
	return out
}

// gcTasks removes the folders of background tasks that ended more than
// TaskRetention ago, and the spools of foreground calls (folders without
// meta.json) older than SpoolRetention. Running tasks are never touched.
func gcTasks(dataDir string, now time.Time) {
	root := tasksRoot(dataDir)
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < SpoolRetention {
			continue
		}
		t, err := readTask(dataDir, e.Name())
		switch {
		case errors.Is(err, errNoTask):
			if fi, err := os.Stat(spoolPath(dir)); err == nil && now.Sub(fi.ModTime()) < SpoolRetention {
				continue // still being written
			}
		case err != nil || t.status == StatusRunning:
			continue
		default:
			ended := t.meta.StartedAt
			if fi, err := os.Stat(filepath.Join(dir, metaFile)); err == nil && t.status == StatusCorrupt {
				ended = fi.ModTime()
			}
			if fi, err := os.Stat(filepath.Join(dir, exitFile)); err == nil {
				ended = fi.ModTime()
			}
			if now.Sub(ended) < TaskRetention {
				continue
			}
		}
		removeTaskDir(dir)
	}
}

// fileView renders what a spool file holds: its head and its tail, with
// the counts of the whole stream from st (a finished run) or counted from
// the file (a running one).
func fileView(path string, st *outputStats) outputView {
	v := outputView{Path: path}
	if st != nil && st.Unspooled {
		// The whole output came with the record; the file, if it must
		// be shown, is made from it (see runSetup.finish).
		v.Head, v.Tail = st.Tail, st.Tail
		v.Bytes, v.Lines, v.SpoolBytes = st.Bytes, st.Lines, st.Bytes
		return v
	}
	f, err := os.Open(path)
	if err != nil {
		if st != nil {
			v.Bytes, v.Lines, v.SpoolBytes, v.Tail = st.Bytes, st.Lines, st.SpoolBytes, st.Tail
		}
		return v
	}
	defer f.Close()
	size := int64(0)
	if info, err := f.Stat(); err == nil {
		size = info.Size()
	}
	if st != nil {
		v.Bytes, v.Lines, v.SpoolBytes = st.Bytes, st.Lines, min(st.SpoolBytes, size)
	} else {
		v.Bytes, v.SpoolBytes = size, size
		v.Lines = countLines(io.NewSectionReader(f, 0, size))
	}
	v.Head = readAt(f, 0, min(int64(OutputCap), v.SpoolBytes))
	switch {
	case st != nil && st.Tail != nil:
		v.Tail = st.Tail
	default:
		n := min(int64(OutputCap), v.SpoolBytes)
		v.Tail = readAt(f, v.SpoolBytes-n, n)
	}
	return v
}

func readAt(f *os.File, off, n int64) []byte {
	buf := make([]byte, n)
	k, _ := f.ReadAt(buf, off)
	return buf[:k]
}

func countLines(r io.Reader) int64 {
	buf := make([]byte, readBufferSize)
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err != nil {
			return n
		}
	}
}
