package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSkillGolden(t *testing.T) {
	for _, role := range []string{"", "explore"} {
		t.Run("role="+role, func(t *testing.T) {
			f, bufs := testFactory(t, nil)
			args := []string{"skill", "-o", "text"}
			if role != "" {
				args = append(args, "--role", role)
			}
			if code := Run(context.Background(), f, args); code != 0 {
				t.Fatalf("exit %d: %s", code, bufs.errOut)
			}
			text := bufs.out.String()
			name := "SKILL.md"
			if role != "" {
				name = "SKILL." + role + ".md"
			}
			golden(t, name, text)
			front, body, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
			if !strings.HasPrefix(text, "---\n") || !ok || !strings.Contains(front, "name: mcode\n") ||
				!strings.Contains(front, "description: ") || !strings.HasPrefix(body, "\n# ") {
				t.Errorf("not Agent Skills front matter then Markdown:\n%s", text[:min(len(text), 400)])
			}
		})
	}
}

// The explore role may not change files: the guide must not offer it
// write, edit or rm.
func TestSkillListsOnlyTheRolesTools(t *testing.T) {
	f, bufs := testFactory(t, nil)
	if code := Run(context.Background(), f, []string{"skill", "--role", "explore", "-o", "text"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	text := bufs.out.String()
	for _, gone := range []string{"`mcode write ", "`mcode edit ", "`mcode rm "} {
		if strings.Contains(text, gone) {
			t.Errorf("explore guide offers %s", gone)
		}
	}
	if !strings.Contains(text, "`mcode read PATH") {
		t.Errorf("explore guide lacks read")
	}
}

func TestSkillInstall(t *testing.T) {
	f, bufs := testFactory(t, nil)
	dir := filepath.Join(t.TempDir(), "skills")
	if code := Run(context.Background(), f, []string{"skill", "--install", dir}); code != 0 {
		t.Fatalf("exit %d: %s", code, bufs.out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "mcode", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "---\nname: mcode\n") {
		t.Errorf("installed file starts %q", string(data)[:40])
	}
	if !strings.Contains(bufs.out.String(), `"path":"`+filepath.Join(dir, "mcode", "SKILL.md")+`"`) {
		t.Errorf("result does not name the path: %s", bufs.out)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "mcode"))
	if len(entries) != 1 {
		t.Errorf("install left %d files, want SKILL.md only", len(entries))
	}
	// A file in the way of the folder: a clear error, nothing written.
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f2, bufs2 := testFactory(t, nil)
	if code := Run(context.Background(), f2, []string{"skill", "--install", blocked}); code != 1 {
		t.Errorf("install into a file: exit %d, want 1: %s", code, bufs2.out)
	}
}
