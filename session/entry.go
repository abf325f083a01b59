package session

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Line types of a session file. The first five are Claude Code's; the
// tombstone and the state are ours.
const (
	typeUser        = "user"
	typeAssistant   = "assistant"
	typeSystem      = "system"
	typeAttachment  = "attachment"
	typeSummary     = "summary"
	typeCustomTitle = "custom-title"
	typeTombstone   = "tombstone"
	typeState       = "agent-lsp-state"
	typePermission  = "agent-lsp-permission"

	subtypeCompactBoundary = "compact_boundary"
)

// Markers whose presence in a raw line makes it a candidate compaction
// boundary. Only candidates are parsed while looking for the last
// boundary, so this test must accept every line [parseLine] calls a
// boundary: both go through [lineIsBoundary].
var (
	markerBoundary       = []byte(`"` + subtypeCompactBoundary + `"`)
	markerCompactSummary = []byte(`"isCompactSummary"`)
	// markerState is in every state line: searching for the last one
	// parses only the lines that hold it.
	markerState = []byte(`"` + typeState + `"`)
)

// entry is the part of one session line that loading uses. Lines of any
// type decode into it; unknown fields are skipped.
type entry struct {
	Type           string
	Subtype        string
	UUID           string
	Parent         string // parentUuid; "" for null
	LogicalParent  string // logicalParentUuid of a compact boundary
	Cwd            string
	Sidechain      bool // isSidechain: a subagent's line
	Meta           bool // isMeta: a line hidden from the user, not from the model
	CompactSummary bool // isCompactSummary: the summary that opens a compacted context
	APIError       bool // isApiErrorMessage: a synthetic error, not a model turn
	Summary        string
	CustomTitle    string
	State          *State // an agent-lsp-state line's state
	ToolUseID      string // an agent-lsp-permission line's tool call
	Permission     *Permission
	Deleted        []string         // tombstone: uuids of deleted lines
	MessageID      string           // message.id: Claude Code splits one response over several lines sharing it
	Model          string           // message.model of an assistant line
	Usage          *providers.Usage // message.usage of an assistant line
	Message        *providers.Message
	// ToolUseResult is Claude Code's toolUseResult: what a tool call did,
	// for display (an edit's file and patch), beside the tool_result the
	// model saw. ToolUseResults is ours, for a line with several results,
	// by tool_use_id.
	ToolUseResult  jsontext.Value
	ToolUseResults map[string]jsontext.Value
	// Preserved is the compactMetadata.preservedMessages of a
	// compact_boundary: the lines before it Claude Code kept verbatim
	// after the summary (Anchor, "" for the summary line).
	Preserved *preserved
}

// preserved is compactMetadata.preservedMessages.
type preserved struct {
	Anchor string   `json:"anchorUuid"`
	UUIDs  []string `json:"uuids"`
}

// isMessage reports whether e carries a conversation turn. isMeta lines
// are turns: Claude Code hides them from the user but sends them to the
// model (command output, caveats, expanded skills).
func (e *entry) isMessage() bool {
	return (e.Type == typeUser || e.Type == typeAssistant) && !e.Sidechain && !e.APIError &&
		e.Message != nil && len(e.Message.Content) > 0
}

// isBoundary reports whether e opens a new compacted context: Claude Code's
// compact_boundary system line, or the summary user line that follows it.
func (e *entry) isBoundary() bool {
	if e.Sidechain {
		return false
	}
	return (e.Type == typeSystem && e.Subtype == subtypeCompactBoundary) ||
		(e.Type == typeUser && e.CompactSummary)
}

// lineIsBoundary reports whether the raw line, parsed as e (with parse
// error err), is a compaction boundary.
func lineIsBoundary(raw []byte, e *entry, err error) bool {
	return err == nil && e.isBoundary() && hasBoundaryMarker(raw)
}

func hasBoundaryMarker(raw []byte) bool {
	return bytes.Contains(raw, markerBoundary) || bytes.Contains(raw, markerCompactSummary)
}

// decodeOptions make decoding tolerant of what other writers produce
// (duplicate keys, lone surrogates) and route content blocks through
// single-pass decoders: the providers types' own UnmarshalJSON methods
// use encoding/json and scan a large tool result several times, which
// made a 12 MB line take hundreds of milliseconds.
var decodeOptions = json.JoinOptions(
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	json.WithUnmarshalers(json.JoinUnmarshalers(
		json.UnmarshalFromFunc(decodeBlocks),
		json.UnmarshalFromFunc(decodeBlock),
		json.UnmarshalFromFunc(decodeString),
	)),
)

// plainBlock has Block's fields without its methods, so decoding it uses
// the default struct decoder (and decodeBlocks for its Content).
type plainBlock providers.Block

func decodeBlock(dec *jsontext.Decoder, b *providers.Block) error {
	return json.UnmarshalDecode(dec, (*plainBlock)(b))
}

// decodeBlocks accepts content given as a plain string, as Claude Code
// writes user prompts and tool results.
func decodeBlocks(dec *jsontext.Decoder, bs *[]providers.Block) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported // the default: an array of blocks
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	*bs = []providers.Block{providers.TextBlock(tok.String())}
	return nil
}

// decodeString decodes a string value with a single copy into the
// result, where the default decoder unquotes into a buffer and then
// copies that: a 12 MB tool result cost 12 MB more and a few
// milliseconds.
func decodeString(dec *jsontext.Decoder, s *string) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported
	}
	v, err := dec.ReadValue() // validated: escapes are well formed
	if err != nil {
		return err
	}
	*s = unquote(v)
	return nil
}

// unquote returns the text of a valid JSON string literal. A lone
// surrogate becomes U+FFFD.
func unquote(v []byte) string {
	v = v[1 : len(v)-1]
	i := bytes.IndexByte(v, '\\')
	if i < 0 {
		return string(v)
	}
	var b strings.Builder
	b.Grow(len(v))
	for {
		b.Write(v[:i])
		v = v[i:]
		switch c := v[1]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(v[2:6])
			v = v[4:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(v) >= 8 && v[2] == '\\' && v[3] == 'u' {
					r2 = hex4(v[4:8])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					v = v[6:]
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
		v = v[2:]
		if i = bytes.IndexByte(v, '\\'); i < 0 {
			b.Write(v)
			return b.String()
		}
	}
}

// hex4 decodes four hexadecimal digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// wireMessage is the message of a user or assistant line.
type wireMessage struct {
	ID      string            `json:"id"`
	Model   string            `json:"model"`
	Role    providers.Role    `json:"role"`
	Content []providers.Block `json:"content"`
	Usage   *providers.Usage  `json:"usage"`
}

// parseLine decodes one line.
func parseLine(raw []byte) (entry, error) {
	var e entry
	err := json.Unmarshal(raw, &e, decodeOptions)
	return e, err
}

// UnmarshalJSONFrom decodes a line in one pass: header fields are read
// as tokens, the message is decoded only for user and assistant lines,
// and everything else is skipped without being materialized.
func (e *entry) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("line is a JSON %v, not an object", tok.Kind())
	}
	var deferred jsontext.Value // the message, when it came before the type
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if tok.Kind() == '}' {
			break
		}
		switch tok.String() {
		case "type":
			e.Type, err = readString(dec)
		case "subtype":
			e.Subtype, err = readString(dec)
		case "uuid":
			e.UUID, err = readString(dec)
		case "parentUuid":
			e.Parent, err = readString(dec)
		case "logicalParentUuid":
			e.LogicalParent, err = readString(dec)
		case "cwd":
			e.Cwd, err = readString(dec)
		case "summary":
			e.Summary, err = readString(dec)
		case "customTitle":
			e.CustomTitle, err = readString(dec)
		case "state":
			if dec.PeekKind() != '{' {
				err = dec.SkipValue()
				break
			}
			var st State
			if err = json.UnmarshalDecode(dec, &st); err == nil {
				e.State = &st
			}
		case "toolUseId":
			e.ToolUseID, err = readString(dec)
		case "permission":
			if dec.PeekKind() != '{' {
				err = dec.SkipValue()
				break
			}
			var pm Permission
			if err = json.UnmarshalDecode(dec, &pm); err == nil {
				e.Permission = &pm
			}
		case "isSidechain":
			e.Sidechain, err = readBool(dec)
		case "isMeta":
			e.Meta, err = readBool(dec)
		case "isCompactSummary":
			e.CompactSummary, err = readBool(dec)
		case "isApiErrorMessage":
			e.APIError, err = readBool(dec)
		case "deleted":
			err = readStrings(dec, &e.Deleted)
		case "compactMetadata":
			if dec.PeekKind() != '{' {
				err = dec.SkipValue()
				break
			}
			var m struct {
				Preserved *preserved `json:"preservedMessages"`
			}
			if err = json.UnmarshalDecode(dec, &m); err == nil && m.Preserved != nil && len(m.Preserved.UUIDs) > 0 {
				e.Preserved = m.Preserved
			}
		case "toolUseResult":
			var v jsontext.Value
			if v, err = dec.ReadValue(); err == nil {
				e.ToolUseResult = v.Clone()
			}
		case "toolUseResults":
			if dec.PeekKind() != '{' {
				err = dec.SkipValue()
				break
			}
			err = json.UnmarshalDecode(dec, &e.ToolUseResults)
		case "message":
			switch e.Type {
			case typeUser, typeAssistant:
				err = e.decodeMessage(dec)
			case "":
				var v jsontext.Value
				v, err = dec.ReadValue()
				deferred = v.Clone()
			default:
				err = dec.SkipValue()
			}
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	if e.Type != typeState {
		e.State = nil
	}
	if deferred != nil && e.Message == nil && (e.Type == typeUser || e.Type == typeAssistant) {
		return e.decodeMessage(jsontext.NewDecoder(bytes.NewReader(deferred), decodeOptions))
	}
	return nil
}

func (e *entry) decodeMessage(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		return dec.SkipValue()
	}
	var m wireMessage
	if err := json.UnmarshalDecode(dec, &m); err != nil {
		return err
	}
	e.MessageID, e.Model, e.Usage = m.ID, m.Model, m.Usage
	e.Message = &providers.Message{Role: m.Role, Content: m.Content}
	return nil
}

// readString reads a string value; any other kind (null included) reads
// as "".
func readString(dec *jsontext.Decoder) (string, error) {
	if dec.PeekKind() != '"' {
		return "", dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return "", err
	}
	return tok.String(), nil
}

// readBool reads a boolean value; any other kind reads as false.
func readBool(dec *jsontext.Decoder) (bool, error) {
	if k := dec.PeekKind(); k != 't' && k != 'f' {
		return false, dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return false, err
	}
	return tok.Bool(), nil
}

// readStrings reads an array of strings, ignoring other elements.
func readStrings(dec *jsontext.Decoder, out *[]string) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		s, err := readString(dec)
		if err != nil {
			return err
		}
		if s != "" {
			*out = append(*out, s)
		}
	}
	_, err := dec.ReadToken()
	return err
}

// Lines as written. Field order follows Claude Code's, with type before
// message so readers can decide early what the message is.

// messageLine is a user, assistant or system line: a node of the
// parentUuid chain.
type messageLine struct {
	ParentUUID                *string          `json:"parentUuid"`
	LogicalParentUUID         string           `json:"logicalParentUuid,omitempty"`
	IsSidechain               bool             `json:"isSidechain"`
	AgentID                   string           `json:"agentId,omitempty"`
	UserType                  string           `json:"userType"`
	Cwd                       string           `json:"cwd"`
	SessionID                 string           `json:"sessionId"`
	Version                   string           `json:"version"`
	GitBranch                 string           `json:"gitBranch,omitempty"`
	Type                      string           `json:"type"`
	Subtype                   string           `json:"subtype,omitempty"`
	Content                   string           `json:"content,omitempty"`
	CompactMetadata           *compactMetadata `json:"compactMetadata,omitempty"`
	Level                     string           `json:"level,omitempty"`
	IsCompactSummary          bool             `json:"isCompactSummary,omitempty"`
	IsVisibleInTranscriptOnly bool             `json:"isVisibleInTranscriptOnly,omitempty"`
	Message                   any              `json:"message,omitempty"`
	UUID                      string           `json:"uuid"`
	Timestamp                 string           `json:"timestamp"`
	// ToolUseResult is Claude Code's field, on a line holding one tool
	// result; ToolUseResults is ours, on a line holding several.
	ToolUseResult  stdjson.RawMessage            `json:"toolUseResult,omitempty"`
	ToolUseResults map[string]stdjson.RawMessage `json:"toolUseResults,omitempty"`
}

// assistantMessage is an assistant line's message as Claude Code writes
// it: the API's response, with its id, model, stop reason and usage.
type assistantMessage struct {
	ID           string            `json:"id"`
	Type         string            `json:"type"`
	Role         providers.Role    `json:"role"`
	Model        string            `json:"model,omitempty"`
	Content      []providers.Block `json:"content"`
	StopReason   *string           `json:"stop_reason"`
	StopSequence *string           `json:"stop_sequence"`
	Usage        *providers.Usage  `json:"usage,omitempty"`
}

// promptMessage is a user prompt of text only, whose content Claude Code
// writes as a string.
type promptMessage struct {
	Role    providers.Role `json:"role"`
	Content string         `json:"content"`
}

// ResponseInfo is what the API said of a response besides its content,
// written with it as Claude Code does (its resume screen shows them).
type ResponseInfo struct {
	Model      string
	StopReason string // "" for a response cut short (cancelled)
	Usage      *providers.Usage
}

type compactMetadata struct {
	Trigger string `json:"trigger"`
}

// metaLine is a line outside the chain: a title, a tombstone or a state.
type metaLine struct {
	Type        string      `json:"type"`
	Summary     string      `json:"summary,omitempty"`
	LeafUUID    string      `json:"leafUuid,omitempty"`
	CustomTitle string      `json:"customTitle,omitempty"`
	Deleted     []string    `json:"deleted,omitempty"`
	State       *State      `json:"state,omitempty"`
	ToolUseID   string      `json:"toolUseId,omitempty"`
	Permission  *Permission `json:"permission,omitempty"`
	SessionID   string      `json:"sessionId"`
	Cwd         string      `json:"cwd,omitempty"`
	Timestamp   string      `json:"timestamp"`
}

// lineEncoder appends lines to a buffer. It uses encoding/json, whose
// omitempty rules the providers types were written for, without HTML
// escaping.
type lineEncoder struct {
	buf bytes.Buffer
	enc *stdjson.Encoder
}

func newLineEncoder() *lineEncoder {
	le := &lineEncoder{}
	le.enc = stdjson.NewEncoder(&le.buf)
	le.enc.SetEscapeHTML(false)
	return le
}

// add encodes v as one line (the encoder ends it with a newline).
func (le *lineEncoder) add(v any) error {
	if err := le.enc.Encode(v); err != nil {
		return fmt.Errorf("encoding session line: %w", err)
	}
	return nil
}
