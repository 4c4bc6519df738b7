// Package approval keeps the approvals a person gives for calls the guard
// held: one JSON file per approval under MCODE_HOME/approvals, written
// atomically, every change made under a lock so that two processes never
// both redeem the same approval.
//
// A person's answer is sealed: an HMAC under a key kept in the person's
// own config folder (never under MCODE_HOME, which the caller chooses),
// over the record and the folder it lives in. A record a command wrote or
// edited, or copied into another MCODE_HOME, grants nothing.
package approval

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// DirName is the folder under MCODE_HOME.
const DirName = "approvals"

// DefaultTTL is how long an approval stays good (guard.approvalTTL).
const DefaultTTL = time.Hour

// Status of an approval.
type Status string

const (
	Pending Status = "pending"
	Granted Status = "granted"
	Denied  Status = "denied"
	Used    Status = "used"
	Expired Status = "expired" // shown, never stored
	// Forged: shown for a decided record without the person's seal (a
	// command wrote it); it counts for nothing.
	Forged Status = "forged"
)

// Kinds of approval.
const (
	// KindCall approves one call, once.
	KindCall = ""
	// KindTrust trusts a definition that a config file of the caller's
	// asks mcode to run (an MCP server, a command hook, a command tool):
	// every later call may run it, until the definition changes.
	KindTrust = "trust"
)

// Record is one approval.
type Record struct {
	ID     string          `json:"id"`
	Kind   string          `json:"kind,omitempty"` // KindCall or KindTrust
	Status Status          `json:"status"`
	Tool   string          `json:"tool"`
	Digest string          `json:"digest"` // of tool, root and arguments: see guard.Digest
	Args   json.RawMessage `json:"args"`   // secrets masked, for the person to read
	Root   string          `json:"root"`
	Rule   string          `json:"rule"`
	Reason string          `json:"reason"`
	// Created is when the guard asked; Expires when the approval lapses
	// (a grant restarts the clock); Decided when a person answered, Used
	// when the call ran.
	Created time.Time  `json:"created"`
	Expires time.Time  `json:"expires"`
	Decided *time.Time `json:"decided,omitempty"`
	Used    *time.Time `json:"used,omitempty"`
	// Seal is the person's answer sealed with the key (see the package
	// comment); a decided record without a good seal counts for nothing.
	Seal string `json:"seal,omitempty"`
}

// Store is the approvals folder.
type Store struct {
	Dir string
	TTL time.Duration
	Now func() time.Time
	// Key seals a person's answers; nil: this process may neither give
	// nor honour one (there is no trusted folder for the key).
	Key []byte
	// KeyDir, when Key is nil, is where the key is read on first need (a
	// long-lived process sees a key a person made after it started).
	KeyDir string
	keyMu  sync.Mutex
}

// key is the key, read from KeyDir when it was not given.
func (s *Store) key() []byte {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if s.Key == nil && s.KeyDir != "" {
		s.Key, _ = LoadKey(s.KeyDir, false)
	}
	return s.Key
}

// Open returns the store under an MCODE_HOME.
func Open(dataDir string, ttl time.Duration, now func() time.Time) *Store {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Store{Dir: filepath.Join(dataDir, DirName), TTL: ttl, Now: now}
}

// validID checks the shape of an id (apr_ and 16 hex digits): it
// becomes a file name.
func validID(id string) bool {
	hexPart, ok := strings.CutPrefix(id, "apr_")
	if !ok || len(hexPart) != 16 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "apr_" + hex.EncodeToString(b[:])
}

// Error is a problem with an approval id; Code says which.
type Error struct {
	Code   string // unknown, pending, denied, used, expired, mismatch, invalid
	ID     string
	Detail string
}

func (e *Error) Error() string { return fmt.Sprintf("approval %s: %s", e.ID, e.Detail) }

func (s *Store) path(id string) string { return filepath.Join(s.Dir, id+".json") }

// locked runs fn holding the store's lock (across processes).
func (s *Store) locked(fn func() error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	lk := flock.New(filepath.Join(s.Dir, ".lock"))
	if err := lk.Lock(); err != nil {
		return err
	}
	defer lk.Unlock()
	return fn()
}

func (s *Store) read(id string) (*Record, error) {
	if !validID(id) {
		return nil, &Error{Code: "invalid", ID: id, Detail: "not an approval id (they look like apr_0123456789abcdef)"}
	}
	data, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Code: "unknown", ID: id, Detail: "no such approval in " + s.Dir}
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("approval %s: the file %s is damaged: %v", id, s.path(id), err)
	}
	return &r, nil
}

func (s *Store) write(r *Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(s.path(r.ID), append(data, '\n'), 0o600)
}

// shown is the record as a person sees it now: a lapsed one is expired.
func (s *Store) shown(r *Record) *Record {
	switch {
	case r.Status != Pending && !s.sealed(r):
		c := *r
		c.Status = Forged
		return &c
	case (r.Status == Pending || r.Status == Granted) && !r.Expires.IsZero() && s.Now().After(r.Expires):
		c := *r
		c.Status = Expired
		return &c
	}
	return r
}

// Request records that a call needs approval, or returns the pending
// request for the very same call.
func (s *Store) Request(r Record) (*Record, error) {
	var out *Record
	err := s.locked(func() error {
		now := s.Now()
		if list, err := s.list(); err == nil {
			for _, p := range list {
				if p.Status == Pending && p.Kind == r.Kind && p.Digest == r.Digest && now.Before(p.Expires) {
					out = p
					return nil
				}
			}
		}
		r.ID = newID()
		r.Status = Pending
		r.Created = now.UTC()
		r.Expires = now.Add(s.TTL).UTC()
		out = &r
		return s.write(&r)
	})
	return out, err
}

// Decide records a person's answer to a pending approval, sealed. A
// trust approval, once granted, does not expire: it lasts as long as the
// definition it names.
func (s *Store) Decide(id string, grant bool) (*Record, error) {
	if s.key() == nil {
		return nil, ErrNoKey
	}
	var out *Record
	err := s.locked(func() error {
		r, err := s.read(id)
		if err != nil {
			return err
		}
		if v := s.shown(r); v.Status != Pending {
			return &Error{Code: string(v.Status), ID: id, Detail: "it is " + string(v.Status) + ", not pending: nothing to decide"}
		}
		now := s.Now().UTC()
		r.Decided = &now
		switch {
		case !grant:
			r.Status = Denied
		case r.Kind == KindTrust:
			r.Status = Granted
			r.Expires = time.Time{}
		default:
			r.Status = Granted
			r.Expires = now.Add(s.TTL)
		}
		r.Seal = s.seal(r)
		out = r
		return s.write(r)
	})
	return out, err
}

// ErrNoKey: there is no key to seal or check a person's answer with.
var ErrNoKey = errors.New("no approval key: approvals need the person's own config folder (~/.config/mcode), where mcode keeps the key that seals them")

// seal is the HMAC of what a person decided, and where it is kept.
func (s *Store) seal(r *Record) string {
	mac := hmac.New(sha256.New, s.key())
	dir, _ := filepath.Abs(s.Dir)
	decided := ""
	if r.Decided != nil {
		decided = r.Decided.UTC().Format(time.RFC3339Nano)
	}
	for _, part := range []string{"mcode approval v1", dir, r.ID, r.Kind, string(r.Status), r.Tool, r.Digest, r.Root,
		r.Expires.UTC().Format(time.RFC3339Nano), decided} {
		mac.Write([]byte(part))
		mac.Write([]byte{0})
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// sealed says whether a decided record carries the person's seal.
func (s *Store) sealed(r *Record) bool {
	if s.key() == nil || r.Seal == "" {
		return false
	}
	want := *r
	want.Status = Granted
	if r.Status == Denied {
		want.Status = Denied
	}
	return hmac.Equal([]byte(r.Seal), []byte(s.seal(&want)))
}

// Redeem uses a granted approval for the call with this digest, once.
func (s *Store) Redeem(id, digest string) (*Record, error) {
	var out *Record
	err := s.locked(func() error {
		r, err := s.read(id)
		if err != nil {
			return err
		}
		if r.Kind == KindTrust {
			return &Error{Code: "invalid", ID: id, Detail: "it trusts a definition, not one call: no --approval needed once granted"}
		}
		if (r.Status == Granted || r.Status == Denied || r.Status == Used) && !s.sealed(r) {
			return &Error{Code: "forged", ID: id, Detail: "its record was not written by a person's mcode approve (the seal does not match): it grants nothing"}
		}
		switch v := s.shown(r); v.Status {
		case Granted:
		case Pending:
			return &Error{Code: "pending", ID: id, Detail: "no person has approved it yet"}
		case Denied:
			return &Error{Code: "denied", ID: id, Detail: "a person denied it"}
		case Used:
			return &Error{Code: "used", ID: id, Detail: "it was already used: an approval runs one call once"}
		case Expired:
			return &Error{Code: "expired", ID: id, Detail: fmt.Sprintf("it expired at %s", r.Expires.Format(time.RFC3339))}
		}
		if r.Digest != digest {
			return &Error{Code: "mismatch", ID: id, Detail: fmt.Sprintf("it approves another call (%s %s), not this one", r.Tool, r.Args)}
		}
		now := s.Now().UTC()
		r.Status = Used
		r.Used = &now
		out = r
		return s.write(r)
	})
	return out, err
}

// Get reads one approval.
func (s *Store) Get(id string) (*Record, error) {
	r, err := s.read(id)
	if err != nil {
		return nil, err
	}
	return s.shown(r), nil
}

// List returns every approval, newest first.
func (s *Store) List() ([]*Record, error) {
	list, err := s.list()
	for i, r := range list {
		list[i] = s.shown(r)
	}
	return list, err
}

func (s *Store) list() ([]*Record, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validID(id) {
			continue
		}
		if r, err := s.read(id); err == nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Record) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// Trusted says whether a person trusted the definition with this digest
// (a granted, sealed trust approval).
func (s *Store) Trusted(digest string) bool {
	if s.key() == nil {
		return false
	}
	list, err := s.list()
	if err != nil {
		return false
	}
	for _, r := range list {
		if r.Kind == KindTrust && r.Status == Granted && r.Digest == digest && s.sealed(r) {
			return true
		}
	}
	return false
}

// KeyFile is the key's file in the person's config folder.
const KeyFile = "approval.key"

// LoadKey reads the key that seals approvals from dir, the person's own
// config folder; with create, a missing key is made (32 random bytes,
// mode 0600). Without create, a missing key is nil and no error: nothing
// was ever approved.
func LoadKey(dir string, create bool) ([]byte, error) {
	if dir == "" {
		return nil, nil
	}
	path := filepath.Join(dir, KeyFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		key, derr := hex.DecodeString(strings.TrimSpace(string(data)))
		if derr != nil || len(key) < 32 {
			return nil, fmt.Errorf("the approval key %s is damaged: remove it (every approval it sealed lapses) and approve again", path)
		}
		return key, nil
	case !errors.Is(err, fs.ErrNotExist) || !create:
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another process made it first
		return LoadKey(dir, false)
	}
	if err != nil {
		return nil, err
	}
	_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, werr
	}
	return key, nil
}
