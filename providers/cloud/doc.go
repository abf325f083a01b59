// Package cloud streams Claude's responses through Amazon Bedrock and
// Google Vertex AI, with the Anthropic SDK's own bedrock and vertex
// packages: the Messages API request is rewritten to the platform's URL
// and signed with AWS SigV4 (or a Bedrock API key), or sent with a Google
// OAuth token; Bedrock's event-stream answer is read as the API's SSE.
//
// The caller (providers/config) decides from the environment which
// platform, region and project are used; this package only builds and
// runs the clients.
package cloud
