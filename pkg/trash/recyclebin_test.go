package trash

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
	"unicode/utf16"
)

// recycleRecord writes a $I record the way the format is documented: the
// version, size and FILETIME, then the path (version 1: a fixed field of
// 260 UTF-16 units; version 2: the count of units, NUL included, then
// the units).
func recycleRecord(version int64, size int64, deleted time.Time, path string) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, version)
	_ = binary.Write(&b, binary.LittleEndian, size)
	_ = binary.Write(&b, binary.LittleEndian, ToFiletime(deleted))
	units := append(utf16.Encode([]rune(path)), 0)
	if version == 1 {
		field := make([]uint16, 260)
		copy(field, units)
		units = field
	} else {
		_ = binary.Write(&b, binary.LittleEndian, uint32(len(units)))
	}
	_ = binary.Write(&b, binary.LittleEndian, units)
	return b.Bytes()
}

func TestParseRecycleRecord(t *testing.T) {
	when := time.Date(2026, 12, 2, 13, 4, 5, 123456700, time.UTC)
	for _, v := range []int64{1, 2} {
		data := recycleRecord(v, 4096, when, `C:\Users\Ann\Documents\résumé 2026.docx`)
		rec, err := ParseRecycleRecord(data)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if rec.Version != v || rec.Size != 4096 || !rec.Deleted.Equal(when) || rec.Path != `C:\Users\Ann\Documents\résumé 2026.docx` {
			t.Errorf("version %d: %+v", v, rec)
		}
	}
	if len(recycleRecord(1, 0, when, `C:\x`)) != 544 {
		t.Error("a version 1 record is 544 bytes")
	}
	v2 := recycleRecord(2, 1, when, `C:\x`)
	if !bytes.Equal(v2[24:28], []byte{5, 0, 0, 0}) || len(v2) != 28+10 {
		t.Errorf("version 2 layout: % x", v2)
	}
	for name, data := range map[string][]byte{
		"empty":          nil,
		"header only":    v2[:24],
		"cut path":       v2[:len(v2)-4],
		"version 3":      append([]byte{3, 0, 0, 0, 0, 0, 0, 0}, v2[8:]...),
		"v1 cut":         recycleRecord(1, 0, when, `C:\x`)[:300],
		"no path":        recycleRecord(2, 0, when, ""),
		"a huge length":  append(append([]byte(nil), v2[:24]...), 0xff, 0xff, 0xff, 0x7f, 'C', 0),
		"zero length v2": append(append([]byte(nil), v2[:24]...), 0, 0, 0, 0),
	} {
		if _, err := ParseRecycleRecord(data); !errors.Is(err, ErrRecycleRecord) {
			t.Errorf("%s: err = %v, want ErrRecycleRecord", name, err)
		}
	}
}

func FuzzParseRecycleRecord(f *testing.F) {
	when := time.Date(2026, 12, 2, 13, 4, 5, 0, time.UTC)
	f.Add(recycleRecord(1, 10, when, `C:\a.txt`))
	f.Add(recycleRecord(2, 10, when, `D:\dir\b`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ParseRecycleRecord(data)
		if err != nil {
			if !errors.Is(err, ErrRecycleRecord) {
				t.Fatalf("an error that is not ErrRecycleRecord: %v", err)
			}
			return
		}
		if rec.Path == "" || rec.Version != 1 && rec.Version != 2 {
			t.Fatalf("accepted %+v", rec)
		}
		// What parses writes back to the same record (version 2).
		again, err := ParseRecycleRecord(recycleRecord(2, rec.Size, rec.Deleted, rec.Path))
		if err != nil || again.Path != rec.Path || again.Size != rec.Size {
			t.Fatalf("round trip of %+v: %+v, %v", rec, again, err)
		}
	})
}

func TestFiletime(t *testing.T) {
	// 2026-12-02T00:00:00Z is 134406432000000000 in 100 ns units since 1601
	// (counted by Python's datetime from 1601-01-01).
	when := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	if ft := ToFiletime(when); ft != 134406432000000000 {
		t.Errorf("ToFiletime = %d", ft)
	}
	if got := FromFiletime(134406432000000000); !got.Equal(when) {
		t.Errorf("FromFiletime = %s", got)
	}
	if !FromFiletime(0).IsZero() {
		t.Error("FromFiletime(0) is not zero")
	}
}
