// Package textedit is the engine under the tools that change text files
// (write, edit, apply_patch): a file decoded so that every byte not asked
// to change is written back as it was (encoding, byte-order mark, line
// breaks), the normal form that fuzzy matching compares, the pieces that
// replace spans of the original text, the unified diff of a change, and
// the advisory lock and atomic commit every mutation goes through.
package textedit
