// Package thumbnail scales an image down to a small grid of colours, for
// an editor that cannot draw pictures: Neovim's chat draws each pair of
// pixel rows as one row of half-block characters (▀, the upper pixel as
// the foreground, the lower one as the background), so a pasted or
// attached image shows as a thumbnail in a terminal with true colour.
//
// It decodes PNG, JPEG, GIF and WebP, the types the model takes, checks
// an image's size before decoding its pixels (a small file can claim
// billions of them), and samples a bounded number of source pixels per
// thumbnail pixel, so a large photo costs as little as a small one.
package thumbnail
