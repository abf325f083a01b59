// Package diffs computes and describes changes between two versions of a
// text: unified diffs for people, and minimal text edits with LSP
// positions (UTF-16 columns) for editors.
//
// Diffs are computed with github.com/aymanbagabas/go-udiff and parsed with
// github.com/sourcegraph/go-diff.
package diffs
