// Package ansihtml renders a terminal screen, as `tmux capture-pane -e -p`
// prints it (text with SGR escape sequences), as an HTML page that a
// headless browser can screenshot: the Neovim screenshots of
// docs/screenshots are made this way (scripts/screenshots-nvim.sh).
//
// Only what a capture holds is understood: SGR attributes (bold, dim,
// italic, underline, reverse, strike-through) and colors (the 16 named
// ones, the 256-color palette and 24-bit RGB, with ";" or ":" separators).
// Other escape sequences are dropped. Every non-ASCII character is drawn
// in a box one or two cells wide, so the grid stays aligned whatever font
// the browser falls back to.
package ansihtml
