package cmd

import (
	"context"
	"testing"
)

// BenchmarkSmallCall measures one whole small call in-process: building
// the command tree, config, schema, the tool and the envelope.
func BenchmarkSmallCall(b *testing.B) {
	for _, argv := range [][]string{{"version"}, {"datetime"}, {"datetime", "--tz", "UTC"}} {
		b.Run(argv[0]+"-"+string(rune('0'+len(argv))), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				f, _ := testFactory(b, nil)
				if code := Run(context.Background(), f, argv); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}
