package engine

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// userMessage turns a prompt's content blocks into the user message the
// model sees. Embedded resources become context blocks, links become
// references the model can Read. The editor's ambient context is left
// out: Session.ambientContext checks and words it.
func userMessage(blocks []schema.ContentBlock) (providers.Message, error) {
	msg := providers.Message{Role: providers.RoleUser}
	for i, b := range blocks {
		if ambientKind(b) != "" {
			continue // the editor's context: only ambientContext sends it, checked
		}
		switch b.Type {
		case schema.BlockText:
			msg.Content = append(msg.Content, providers.TextBlock(b.Text))
		case schema.BlockResourceLink:
			name := b.Name
			if name == "" {
				name = b.URI
			}
			msg.Content = append(msg.Content, providers.TextBlock(fmt.Sprintf("The user attached %s (%s). Read it if you need its content.", name, pathOfURI(b.URI))))
		case schema.BlockResource:
			if b.Resource == nil {
				return msg, fmt.Errorf("prompt[%d]: resource block has no resource", i)
			}
			r := b.Resource
			if r.Text == "" && r.Blob != "" {
				msg.Content = append(msg.Content, providers.TextBlock(fmt.Sprintf("The user attached %s (binary, not shown).", pathOfURI(r.URI))))
				continue
			}
			msg.Content = append(msg.Content, providers.TextBlock(fmt.Sprintf("<context uri=%q>\n%s\n</context>", pathOfURI(r.URI), r.Text)))
		case schema.BlockImage:
			if err := checkImage(b); err != nil {
				return msg, fmt.Errorf("prompt[%d]: %w", i, err)
			}
			msg.Content = append(msg.Content, providers.Block{Type: providers.BlockImage, Source: &providers.ImageSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
		case "":
			return msg, fmt.Errorf("prompt[%d]: content block has no type", i)
		default:
			return msg, fmt.Errorf("prompt[%d]: unsupported content block type %q (want text, resource_link, resource or image)", i, b.Type)
		}
	}
	if len(msg.Content) == 0 {
		return msg, fmt.Errorf("prompt is empty")
	}
	return msg, nil
}

// promptText returns the text blocks of a prompt, for titles and hooks.
func promptText(blocks []schema.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == schema.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// pathOfURI returns the file path of a file:// URI, or the URI itself.
func pathOfURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	if u.Fragment != "" {
		return u.Path + "#" + u.Fragment // a range such as #L4-L5
	}
	return u.Path
}

// imageTypes are the image types the models take.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// checkImage says what is wrong with a prompt's image block, if anything.
func checkImage(b schema.ContentBlock) error {
	if b.Data == "" {
		return fmt.Errorf("image block has no data")
	}
	if !slices.Contains(imageTypes, b.MimeType) {
		return fmt.Errorf("image type %q is not one the model takes (%s)", b.MimeType, strings.Join(imageTypes, ", "))
	}
	n := base64.StdEncoding.DecodedLen(len(b.Data))
	if n > schema.MaxImageBytes {
		return fmt.Errorf("the image is %d KB; the model takes at most %d KB", n>>10, schema.MaxImageBytes>>10)
	}
	if _, err := base64.StdEncoding.DecodeString(b.Data); err != nil {
		return fmt.Errorf("image data is not base64: %v", err)
	}
	return nil
}
