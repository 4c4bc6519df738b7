package connector

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
	// One pass counts, per tool, the weighted frequency of each query
	// word and the weighted length; no word is copied.
	tf := make([]float64, len(tools)*len(query))
	lengths := make([]float64, len(tools))
	df := make([]int, len(query))
	var total float64
	for i, t := range tools {
		row := tf[i*len(query) : (i+1)*len(query)]
		count := func(w float64) func(string) {
			return func(word string) {
				lengths[i] += w
				for qi, q := range query {
					if strings.EqualFold(word, q) {
						row[qi] += w
					}
				}
			}
		}
		scanWords(t.Name, count(weightName))
		scanWords(t.Title, count(weightName))
		for _, p := range t.params() {
			scanWords(p, count(weightParam))
		}
		scanWords(t.Description, count(weightDescription))
		for qi := range query {
			if row[qi] > 0 {
				df[qi]++
			}
		}
		total += lengths[i]
	}
	avg := math.Max(total/math.Max(1, float64(len(tools))), 1e-9)
	n := float64(len(tools))
	for i, t := range tools {
		var score float64
		row := tf[i*len(query) : (i+1)*len(query)]
		for qi := range query {
			f := row[qi]
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[qi])+0.5)/(float64(df[qi])+0.5))
			norm := bm25K1 * (1 - bm25B + bm25B*lengths[i]/avg)
			score += idf * f * (bm25K1 + 1) / (f + norm)
		}
		score += nameBonus(t, kw)
		if score > 0 {
			hits = append(hits, Hit{Tool: t, Score: score})
		}
	}
	sortHits(hits)
	return hits
}

// nameBonus rewards the keyword as a whole found in the tool's bare or
// qualified name.
func nameBonus(t ToolDef, kw string) float64 {
	name, server := t.Name, t.Server
	hasPrefixFold := func(s, prefix string) bool {
		return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
	}
	qualifiedIs := len(kw) == len(server)+len(Separator)+len(name) && hasPrefixFold(kw, server+Separator) && strings.EqualFold(kw[len(server)+len(Separator):], name)
	switch {
	case strings.EqualFold(name, kw) || qualifiedIs:
		return bonusExact
	case hasPrefixFold(name, kw) || hasPrefixFold(QualifiedName(server, name), kw):
		return bonusPrefix
	case strings.Contains(strings.ToLower(QualifiedName(server, name)), kw):
		return bonusSubstring
	}
	return 0
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
	scanWords(s, func(w string) { words = append(words, strings.ToLower(w)) })
	return words
}

// scanWords calls fn with each word of s, as a slice of s (case kept).
func scanWords(s string, fn func(string)) {
	start := -1
	var prev rune
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				fn(s[start:i])
			}
			start, prev = -1, r
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next)) {
				fn(s[start:i])
				start = -1
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	if start >= 0 {
		fn(s[start:])
	}
}

func uniq(words []string) []string {
	slices.Sort(words)
	return slices.Compact(words)
}

// params are the tool's parameter names: cached with the listing, else
// read from its schema.
func (t ToolDef) params() []string {
	if t.Params != nil {
		return t.Params
	}
	return paramNames(t.InputSchema)
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
