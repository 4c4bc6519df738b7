package connector

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Field weights of the ranking: a word in a tool's name says more about
// it than a word in its description.
const (
	weightName        = 3.0
	weightParam       = 1.5
	weightDescription = 1.0

	bm25K1 = 1.2
	bm25B  = 0.75

	// Bonuses for the keyword as a whole against the tool's name (either
	// the bare or the qualified one), on top of BM25.
	bonusExact     = 10.0
	bonusPrefix    = 4.0
	bonusSubstring = 2.0
)

// Hit is one ranked tool.
type Hit struct {
	Tool  ToolDef
	Score float64
}

// Rank orders tools by relevance to keyword: BM25 over the name's words
// (split on _ - . and camelCase, weighted up), the description and the
// parameter names, plus bonuses for an exact, prefix or substring match
// of the name. Tools that match nothing are dropped. Ties go by server
// name, then tool name. An empty keyword keeps every tool in that order.
func Rank(tools []ToolDef, keyword string) []Hit {
	query := uniq(tokenize(keyword))
	kw := strings.ToLower(strings.TrimSpace(keyword))
	hits := make([]Hit, 0, len(tools))
	if kw == "" || len(query) == 0 {
		for _, t := range tools {
			hits = append(hits, Hit{Tool: t})
		}
		sortHits(hits)
		return hits
	}
	docs := make([]map[string]float64, len(tools))
	lengths := make([]float64, len(tools))
	df := map[string]int{}
	var total float64
	for i, t := range tools {
		tf := map[string]float64{}
		add := func(words []string, w float64) {
			for _, x := range words {
				tf[x] += w
				lengths[i] += w
			}
		}
		add(tokenize(t.Name), weightName)
		add(tokenize(t.Title), weightName)
		add(tokenize(strings.Join(paramNames(t.InputSchema), " ")), weightParam)
		add(tokenize(t.Description), weightDescription)
		for _, q := range query {
			if tf[q] > 0 {
				df[q]++
			}
		}
		docs[i] = tf
		total += lengths[i]
	}
	avg := total / math.Max(1, float64(len(tools)))
	n := float64(len(tools))
	for i, t := range tools {
		var score float64
		for _, q := range query {
			f := docs[i][q]
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
			norm := bm25K1 * (1 - bm25B + bm25B*lengths[i]/math.Max(avg, 1e-9))
			score += idf * f * (bm25K1 + 1) / (f + norm)
		}
		name, qualified := strings.ToLower(t.Name), strings.ToLower(t.Qualified())
		switch {
		case name == kw || qualified == kw:
			score += bonusExact
		case strings.HasPrefix(name, kw) || strings.HasPrefix(qualified, kw):
			score += bonusPrefix
		case strings.Contains(qualified, kw):
			score += bonusSubstring
		}
		if score > 0 {
			hits = append(hits, Hit{Tool: t, Score: score})
		}
	}
	sortHits(hits)
	return hits
}

func sortHits(hits []Hit) {
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.Tool.Server, b.Tool.Server); c != 0 {
			return c
		}
		return strings.Compare(a.Tool.Name, b.Tool.Name)
	})
}

// tokenize splits text into lower-case words: on anything that is not a
// letter or digit (so _ - . and spaces), and at camelCase boundaries
// (getHTTPServer is get, http, server).
func tokenize(s string) []string {
	var words []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return words
}

func uniq(words []string) []string {
	slices.Sort(words)
	return slices.Compact(words)
}

// paramNames lists the top-level property names of an input schema.
func paramNames(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
