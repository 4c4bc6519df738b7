package extract

import "testing"

func TestPlainText(t *testing.T) {
	md := "# Title\n\nSome **bold** and *it* and `code` and [a link](http://x).\n\n| a | b \\| c |\n| --- | --- |\n| 1 | 2 |\n\n```go\nx := 1\n```\n"
	want := "Title\n\nSome bold and it and code and a link.\n\na\tb | c\n1\t2\n\nx := 1\n"
	if got := plainText(md); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
