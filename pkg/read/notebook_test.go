package read

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// notebookJSON builds an nbformat 4.5 notebook.
func notebookJSON(t testing.TB, cells ...map[string]any) []byte {
	t.Helper()
	if cells == nil {
		cells = []map[string]any{}
	}
	nb := map[string]any{
		"cells": cells,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"display_name": "Python 3", "language": "python", "name": "python3"},
			"language_info": map[string]any{"name": "python"},
		},
		"nbformat": 4, "nbformat_minor": 5,
	}
	data, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReadNotebook(t *testing.T) {
	env := testEnv(t)
	img := pngBytes(t, 64, 48)
	longOut := strings.Repeat("row\n", 100)
	data := notebookJSON(t,
		map[string]any{"cell_type": "markdown", "id": "intro", "metadata": map[string]any{}, "source": []string{"# Analysis\n", "Some *notes*."}},
		map[string]any{"cell_type": "code", "id": "load", "execution_count": 1, "metadata": map[string]any{},
			"source": "import pandas as pd\ndf = pd.read_csv('x.csv')",
			"outputs": []any{
				map[string]any{"output_type": "stream", "name": "stdout", "text": []string{"loaded 3 rows\n"}},
				map[string]any{"output_type": "execute_result", "execution_count": 1, "metadata": map[string]any{},
					"data": map[string]any{"text/plain": []string{"   a  b\n", "0  1  2"}, "text/html": "<table></table>"}},
			}},
		map[string]any{"cell_type": "code", "id": "plot", "execution_count": 2, "metadata": map[string]any{},
			"source": []string{"df.plot()"},
			"outputs": []any{
				map[string]any{"output_type": "display_data", "metadata": map[string]any{},
					"data": map[string]any{"image/png": base64.StdEncoding.EncodeToString(img), "text/plain": "<Figure size 640x480>"}},
				map[string]any{"output_type": "stream", "name": "stderr", "text": longOut},
			}},
		map[string]any{"cell_type": "code", "id": "boom", "execution_count": 3, "metadata": map[string]any{},
			"source": "1/0",
			"outputs": []any{
				map[string]any{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
					"traceback": []string{"\x1b[0;31m---------\x1b[0m", "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"}},
			}},
	)
	write(t, env, "analysis.ipynb", data)
	resp, res := mustRead(t, env, Params{Path: "analysis.ipynb"})
	out := resp.Output
	for _, want := range []string{
		"analysis.ipynb: Jupyter notebook (python, nbformat 4.5), 4 cells.\n",
		"── cell 1 · markdown · id intro ──\n# Analysis\nSome *notes*.\n",
		"── cell 2 · code · id load · [1] ──\nimport pandas as pd\ndf = pd.read_csv('x.csv')\n→ stdout:\nloaded 3 rows\n→ text/plain:\n   a  b\n0  1  2\n",
		fmt.Sprintf("→ [image/png 64×48, %s]\n", fsutil.HumanBytes(int64(len(img)))),
		"→ text/plain:\n<Figure size 640x480>\n",
		"[… 60 more lines, 240 more characters]",
		"── cell 4 · code · id boom · [3] ──\n1/0\n→ error: ZeroDivisionError: division by zero\n---------\nZeroDivisionError: division by zero\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "<table>") {
		t.Errorf("ANSI escapes or the HTML twin leaked:\n%s", out)
	}
	wantRes := &Range{Start: 1, End: 4, Total: 4}
	if !cmp.Equal(res.Cells, wantRes) || res.Kind != KindNotebook || res.Language != "python" || *res.SHA256 != sha256Hex(data) {
		t.Errorf("result %+v cells %+v", res, res.Cells)
	}

	// offset and limit count cells.
	resp, res = mustRead(t, env, Params{Path: "analysis.ipynb", Offset: 2, Limit: 2})
	if !cmp.Equal(res.Cells, &Range{Start: 2, End: 3, Total: 4}) || strings.Contains(resp.Output, "cell 1 ") || strings.Contains(resp.Output, "cell 4 ") {
		t.Errorf("cells 2-3: %+v\n%s", res.Cells, resp.Output)
	}
	if c := resp.Continuation; c == nil || c.NextOffset != 4 || resp.Truncated {
		t.Errorf("continuation %+v truncated %v", c, resp.Truncated)
	}
	te := readErr(t, env, Params{Path: "analysis.ipynb", Offset: 9}, tool.CodeInvalidArgs)
	if !strings.Contains(te.Message, "4 cells") {
		t.Errorf("past the end: %q", te.Message)
	}
}

func TestReadNotebookOutputCap(t *testing.T) {
	env := testEnv(t)
	var cells []map[string]any
	for i := 0; i < 30; i++ {
		cells = append(cells, map[string]any{"cell_type": "code", "id": fmt.Sprint(i), "metadata": map[string]any{}, "outputs": []any{},
			"source": strings.Repeat(fmt.Sprintf("x = %d  # a line of code in a long cell\n", i), 30)})
	}
	write(t, env, "big.ipynb", notebookJSON(t, cells...))
	resp, res := mustRead(t, env, Params{Path: "big.ipynb"})
	if len(resp.Output) > MaxOutputBytes || res.Cells.End >= 30 || !resp.Truncated || resp.Continuation.NextOffset != res.Cells.End+1 {
		t.Errorf("%d bytes, cells %+v, continuation %+v", len(resp.Output), res.Cells, resp.Continuation)
	}

	// A single cell over the cap is cut and says so.
	huge := map[string]any{"cell_type": "code", "id": "huge", "metadata": map[string]any{}, "outputs": []any{},
		"source": strings.Repeat("y = 'a line of a very long cell'\n", 2000)}
	write(t, env, "huge.ipynb", notebookJSON(t, huge, cells[0]))
	resp, res = mustRead(t, env, Params{Path: "huge.ipynb"})
	if len(resp.Output) > MaxOutputBytes || !strings.HasSuffix(resp.Output, "[… cell cut at the output cap]\n") || res.Cells.End != 1 || resp.Continuation.NextOffset != 2 {
		t.Errorf("%d bytes, cells %+v, continuation %+v", len(resp.Output), res.Cells, resp.Continuation)
	}
}

func TestReadNotebookBroken(t *testing.T) {
	env := testEnv(t)
	write(t, env, "bad.ipynb", []byte("{\n \"cells\": [\n  {\"cell_type\": \"code\",,}\n ]\n}\n"))
	te := readErr(t, env, Params{Path: "bad.ipynb"}, tool.CodeCorruptFile)
	if !strings.Contains(te.Message, "not JSON") || !strings.Contains(te.Message, "line 3") {
		t.Errorf("message %q", te.Message)
	}
	write(t, env, "nocells.ipynb", []byte(`{"metadata": {}}`))
	readErr(t, env, Params{Path: "nocells.ipynb"}, tool.CodeCorruptFile)
	write(t, env, "wrongtype.ipynb", []byte(`{"cells": [{"cell_type": "code", "source": 5}]}`))
	if te := readErr(t, env, Params{Path: "wrongtype.ipynb"}, tool.CodeCorruptFile); !strings.Contains(te.Message, `field "cells.source"`) {
		t.Errorf("message %q does not name the field", te.Message)
	}
	write(t, env, "binary.ipynb", []byte("\x00\x01\x02"))
	readErr(t, env, Params{Path: "binary.ipynb"}, tool.CodeCorruptFile)

	write(t, env, "empty.ipynb", notebookJSON(t))
	resp, res := mustRead(t, env, Params{Path: "empty.ipynb"})
	if res.Cells.Total != 0 || !strings.Contains(resp.Output, "0 cells") {
		t.Errorf("empty notebook: %+v %q", res.Cells, resp.Output)
	}
}

func TestReadNotebookFormat3(t *testing.T) {
	env := testEnv(t)
	write(t, env, "old.ipynb", []byte(`{"nbformat": 3, "nbformat_minor": 0, "metadata": {},
	 "worksheets": [{"cells": [
	   {"cell_type": "code", "input": ["print(1)"], "prompt_number": 1, "language": "python",
	    "outputs": [{"output_type": "pyout", "text": ["1"]}, {"output_type": "stream", "stream": "stdout", "text": "hi\n"}]}
	 ]}]}`))
	out := mustOutput(t, env, Params{Path: "old.ipynb"})
	for _, want := range []string{"1 cell.", "── cell 1 · code · [1] ──\nprint(1)\n→ text/plain:\n1\n→ stdout:\nhi\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("nbformat 3 output lacks %q:\n%s", want, out)
		}
	}
}

func TestClipOutput(t *testing.T) {
	if got := clipOutput("a\nb\n"); got != "a\nb\n" {
		t.Errorf("short output changed: %q", got)
	}
	long := strings.Repeat("é", NotebookOutputMaxChars+5)
	if got := clipOutput(long); got != strings.Repeat("é", NotebookOutputMaxChars)+"\n[… 0 more lines, 5 more characters]\n" {
		t.Errorf("long line clip: %q", got[len(got)-50:])
	}
	// Tracebacks keep ANSI colours and tqdm bars redraw with \r: a model
	// reads the final text.
	if got := clipOutput("\x1b[1;31mred\x1b[0m plain \x1b[K\n 10%\r 50%\r100%\n"); got != "red plain \n100%\n" {
		t.Errorf("clipOutput kept terminal codes: %q", got)
	}
}
