package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/spawn"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Connector reaches the configured servers of one caller.
type Connector struct {
	Servers []Server // the servers this agent may use
	DataDir string   // MCODE_HOME, for the listing cache
	Root    string   // workspace root: a stdio server's default cwd
	Getenv  func(string) string
	Version string // mcode's version, told to servers
	Now     func() time.Time
	// Refresh asks every server again instead of trusting the cache.
	Refresh bool
	// WardenExe is mcode's executable: stdio servers run below its warden
	// (WardenArg). Empty starts them directly.
	WardenExe string
	// Spawn is how a stdio server runs: the environment policy and the
	// sandbox (a server's own sandbox section lies over the global one).
	// Its zero value runs servers in the default sandbox of Root.
	Spawn spawn.Settings

	// Untrusted are servers that a config the caller can write defines
	// and no person has trusted yet: never started, listed as such.
	Untrusted []UntrustedServer

	parked *parking // sessions opened by a lookup, for the call that follows
}

// UntrustedServer is a server waiting for a person's trust.
type UntrustedServer struct {
	Server
	Def *tool.Untrusted
}

// Server states in a ServerStatus.
const (
	StatusReached = "reached" // contacted now
	StatusCached  = "cached"  // its listing came from the cache
	StatusError   = "error"
	// StatusUntrusted: not started; a person must trust its definition.
	StatusUntrusted = "untrusted"
)

// ServerStatus is what one server said, or why it said nothing.
type ServerStatus struct {
	Name            string      `json:"name"`
	Transport       string      `json:"transport"`
	Status          string      `json:"status"`
	ProtocolVersion string      `json:"protocol_version"`
	ToolCount       int         `json:"tool_count"`
	Error           *tool.Error `json:"error"`
	// Trust is trusted, or untrusted for a server that a config the
	// caller can write defines (then never started until a person trusts
	// it).
	Trust string `json:"trust"`
	// Skipped are the tools it lists that cannot be offered, with why.
	Skipped []SkippedTool `json:"skipped,omitempty"`
}

func (c *Connector) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Status contacts every server, in parallel, each under its own time
// limit; a failing server is reported and does not sink the others.
// Listings that succeed refresh the cache.
func (c *Connector) Status(ctx context.Context) []ServerStatus {
	statuses, _ := c.listAll(ctx, c.Servers, true, loadListing)
	for _, u := range c.Untrusted {
		statuses = append(statuses, ServerStatus{Name: u.Name, Transport: u.Transport(), Status: StatusUntrusted, Trust: TrustUntrusted,
			Error: &tool.Error{Code: tool.CodeApprovalRequired,
				Message: fmt.Sprintf("%s defines it, and no person has trusted this definition", u.Def.Layer),
				Hint:    fmt.Sprintf("call one of its tools (%s…) to get an approval id for a person to grant with mcode approve", QualifiedName(u.Name, ""))}})
	}
	return statuses
}

// Trust of a server as ServerStatus says it.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

// Tools lists the tools of every server (or only of server), from the
// cache where it is fresh, asking the others in parallel.
func (c *Connector) Tools(ctx context.Context, server string) ([]ToolDef, []ServerStatus, error) {
	return c.tools(ctx, server, loadListing)
}

// Summaries is Tools without the schemas, read from the search index:
// what a search needs.
func (c *Connector) Summaries(ctx context.Context, server string) ([]ToolDef, []ServerStatus, error) {
	return c.tools(ctx, server, loadIndex)
}

type loader func(dataDir string, s Server, now time.Time) (Listing, bool)

func (c *Connector) tools(ctx context.Context, server string, load loader) ([]ToolDef, []ServerStatus, error) {
	servers := c.Servers
	if server != "" {
		s, err := lookupServer(c.Servers, server)
		if err != nil {
			return nil, nil, err
		}
		servers = []Server{s}
	}
	statuses, listings := c.listAll(ctx, servers, c.Refresh, load)
	var tools []ToolDef
	for _, l := range listings {
		tools = append(tools, l.Tools...)
	}
	return tools, statuses, nil
}

// CachedTools lists what the cache holds of every server, starting none.
func (c *Connector) CachedTools() []ToolDef {
	var tools []ToolDef
	for _, s := range c.Servers {
		if l, ok := loadListing(c.DataDir, s, c.now()); ok {
			tools = append(tools, l.Tools...)
		}
	}
	return tools
}

func (c *Connector) listAll(ctx context.Context, servers []Server, live bool, load loader) ([]ServerStatus, []Listing) {
	statuses := make([]ServerStatus, len(servers))
	listings := make([]Listing, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		statuses[i] = ServerStatus{Name: s.Name, Transport: s.Transport(), Trust: TrustTrusted}
		if !live {
			if l, ok := load(c.DataDir, s, c.now()); ok {
				statuses[i].Status, statuses[i].ProtocolVersion, statuses[i].ToolCount = StatusCached, l.ProtocolVersion, len(l.Tools)
				statuses[i].Skipped = l.Skipped
				listings[i] = l
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := c.listLive(ctx, s)
			if err != nil {
				statuses[i].Status, statuses[i].Error = StatusError, tool.AsError(err)
				return
			}
			statuses[i].Status, statuses[i].ProtocolVersion, statuses[i].ToolCount = StatusReached, l.ProtocolVersion, len(l.Tools)
			statuses[i].Skipped = l.Skipped
			listings[i] = l
		}()
	}
	wg.Wait()
	return statuses, listings
}

// listLive asks one server for its tools under its own time limit and
// caches the answer.
func (c *Connector) listLive(ctx context.Context, s Server) (Listing, error) {
	l, sess, err := c.listKeeping(ctx, s)
	if sess != nil {
		sess.close()
	}
	return l, err
}

// listKeeping is listLive that hands back the open session, for the call
// that follows a lookup (else a cold call started its server twice).
func (c *Connector) listKeeping(ctx context.Context, s Server) (Listing, *session, error) {
	limited, cancel := context.WithTimeout(ctx, s.Timeout())
	defer cancel()
	sess, err := c.connect(limited, s)
	if err != nil {
		return Listing{}, nil, c.limitError(limited, s, "start and answer", err)
	}
	l, err := c.list(limited, sess)
	if err != nil {
		sess.close()
		return Listing{}, nil, c.limitError(limited, s, "list its tools", err)
	}
	return l, sess, nil
}

// parking holds, by server name, the sessions of lookups whose calls
// have not come yet.
type parking struct {
	mu   sync.Mutex
	idle map[string]*session
}

// parkingInit guards the lazy creation of a Connector's parking, which a
// copy of the Connector made afterwards shares.
var parkingInit sync.Mutex

func (c *Connector) parking() *parking {
	parkingInit.Lock()
	defer parkingInit.Unlock()
	if c.parked == nil {
		c.parked = &parking{idle: map[string]*session{}}
	}
	return c.parked
}

// park keeps a session open for the next call of its server in this
// process; Close ends it if none comes.
func (c *Connector) park(sess *session) {
	p := c.parking()
	p.mu.Lock()
	old := p.idle[sess.server.Name]
	p.idle[sess.server.Name] = sess
	p.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// unpark takes the parked session of a server, if it was opened with the
// same configuration.
func (c *Connector) unpark(s Server) *session {
	p := c.parking()
	p.mu.Lock()
	sess := p.idle[s.Name]
	delete(p.idle, s.Name)
	p.mu.Unlock()
	if sess != nil && sess.server.Hash() != s.Hash() {
		sess.close()
		return nil
	}
	return sess
}

// Close ends the sessions parked for a call that did not come, and
// stops their servers.
func (c *Connector) Close() {
	p := c.parking()
	p.mu.Lock()
	idle := p.idle
	p.idle = map[string]*session{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, sess := range idle {
		wg.Add(1)
		go func() { defer wg.Done(); sess.close() }()
	}
	wg.Wait()
}

func (c *Connector) list(ctx context.Context, sess *session) (Listing, error) {
	s := sess.server
	l := Listing{Server: s.Name, ConfigHash: s.Hash(), FetchedAt: c.now().UTC(), ProtocolVersion: sess.protocolVersion(), Tools: []ToolDef{}}
	listed := map[string]bool{}
	for t, err := range sess.cs.Tools(ctx, nil) {
		if err != nil {
			return Listing{}, sess.protocolError("tools/list", err)
		}
		// One bad tool is left out, with the reason; the others stay.
		def, problem := toolDef(s.Name, t)
		if problem == "" && listed[t.Name] {
			problem = "the server lists two tools of this name; the first is kept"
		}
		if problem != "" {
			l.Skipped = append(l.Skipped, SkippedTool{Name: t.Name, Reason: problem})
			continue
		}
		listed[t.Name] = true
		l.Tools = append(l.Tools, def)
	}
	qualify(s.Name, l.Tools)
	// A cache that cannot be written costs a slower next search, no more.
	_ = saveListing(c.DataDir, s, l)
	return l, nil
}

// limitError names the server whose own time limit ran out.
func (c *Connector) limitError(ctx context.Context, s Server, what string, err error) error {
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &tool.Error{Code: tool.CodeTimeout,
			Message: fmt.Sprintf("MCP server %s did not %s within %s", s.Name, what, s.Timeout()),
			Hint:    fmt.Sprintf("raise mcpServers.%s.timeout in the config, or check the server", s.Name)}
	}
	return err
}

// toolDef takes one tool as its server lists it; problem says why it
// cannot be offered ("" when it can). A tool without an inputSchema takes
// any object, and one whose inputSchema leaves out its type gets
// "type": "object", which MCP requires of every tool's arguments.
func toolDef(server string, t *mcp.Tool) (def ToolDef, problem string) {
	d := ToolDef{Server: server, Name: t.Name, Title: t.Title, Description: t.Description}
	if strings.TrimSpace(t.Name) == "" {
		return d, "it has no name"
	}
	in, err := json.Marshal(t.InputSchema)
	if err != nil {
		return d, fmt.Sprintf("its inputSchema does not encode: %v", err)
	}
	if d.InputSchema, problem = objectSchema(in, "inputSchema"); problem != "" {
		return d, problem
	}
	if _, err := tool.CompileSchema(d.Qualified(), d.InputSchema); err != nil {
		return d, schemaProblem("inputSchema", d.Qualified(), err)
	}
	if t.OutputSchema != nil {
		if d.OutputSchema, err = json.Marshal(t.OutputSchema); err != nil {
			return d, fmt.Sprintf("its outputSchema does not encode: %v", err)
		}
		if d.OutputSchema, problem = objectSchema(d.OutputSchema, "outputSchema"); problem != "" {
			return d, problem
		}
		if _, err := tool.CompileSchema(d.Qualified(), d.OutputSchema); err != nil {
			return d, schemaProblem("outputSchema", d.Qualified(), err)
		}
	}
	if t.Annotations != nil {
		d.Annotations, _ = json.Marshal(t.Annotations)
	}
	d.Params = paramNames(d.InputSchema)
	d.Aliases = aliasesOf(t.Meta)
	return d, ""
}

// MaxAliases bounds the other parameter names a tool's _meta may give
// (what mcp serve publishes: a few per tool); more, or longer names, and
// the tool gets none.
const (
	MaxAliases     = 64
	MaxAliasLength = 64
)

// aliasesOf reads the other names a tool takes for its parameters from
// its _meta (tool.AliasesMetaKey: mcode's own tools publish them); nil
// when there are none or they are not well-formed: the schema then
// judges the call alone.
func aliasesOf(meta mcp.Meta) map[string]tool.Alias {
	raw, ok := meta[tool.AliasesMetaKey]
	if !ok {
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var aliases map[string]tool.Alias
	if json.Unmarshal(data, &aliases) != nil || len(aliases) == 0 || len(aliases) > MaxAliases {
		return nil
	}
	for name, a := range aliases {
		if name == "" || a.Param == "" || len(name) > MaxAliasLength || len(a.Param) > MaxAliasLength || len(a.Values) > MaxAliases {
			return nil
		}
	}
	return aliases
}

// schemaProblem says why a schema did not compile, without the name
// CompileSchema gives it.
func schemaProblem(what, name string, err error) string {
	msg := strings.TrimPrefix(err.Error(), "schema of "+name)
	if rest, ok := strings.CutPrefix(msg, ":"); ok {
		msg = " cannot be used:" + rest
	}
	return "its " + what + msg
}

// objectSchema checks that raw is a schema of objects, as MCP requires
// of a tool's inputSchema and outputSchema: none (null) is {"type":
// "object"}, a missing type is "object".
func objectSchema(raw json.RawMessage, what string) (json.RawMessage, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{"type":"object"}`), ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		var v any
		_ = json.Unmarshal(raw, &v)
		return nil, fmt.Sprintf("its %s is %s, not a JSON Schema object", what, tool.JSONKind(v))
	}
	typ, ok := obj["type"]
	if !ok {
		if len(obj) == 0 {
			return json.RawMessage(`{"type":"object"}`), ""
		}
		return append(json.RawMessage(`{"type":"object",`), raw[1:]...), ""
	}
	if string(bytes.TrimSpace(typ)) != `"object"` {
		return nil, fmt.Sprintf(`its %s has "type": %s; the arguments and results of an MCP tool are objects`, what, typ)
	}
	return raw, ""
}

// Find looks a tool up by its qualified name: from the cache, else by
// asking its server. A name the cached listing lacks is looked up again
// in a fresh listing: the server may have the tool now.
func (c *Connector) Find(ctx context.Context, name string) (ToolDef, error) {
	s, toolName, err := c.resolve(name)
	if err != nil {
		return ToolDef{}, err
	}
	if !c.Refresh {
		if l, ok := loadListing(c.DataDir, s, c.now()); ok {
			def, err := findIn(l, s, toolName)
			if err == nil || !isMiss(err) {
				return def, err
			}
		}
	}
	l, sess, err := c.listKeeping(ctx, s)
	if err != nil {
		return ToolDef{}, err
	}
	c.park(sess) // the call that looked it up comes next
	return findIn(l, s, toolName)
}

// CacheRecheckAge is the age past which a cached listing that refuses a
// call's arguments is checked against a fresh one before the refusal
// stands: the server may have changed the tool's schema. A younger one
// answers at once, so a bad argument starts no server.
const CacheRecheckAge = time.Minute

// isMiss says whether a lookup in a listing found no tool of the name.
func isMiss(err error) bool {
	var te *tool.Error
	return errors.As(err, &te) && te.Code == tool.CodeNotFound
}

func (c *Connector) resolve(name string) (Server, string, error) {
	server, toolName, ok := SplitName(name)
	if !ok {
		return Server{}, "", &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("%q is not a qualified MCP tool name", name),
			Hint:    "name an MCP tool as SERVER__TOOL (or SERVER/TOOL); `mcode connector tools` lists them"}
	}
	s, err := lookupServer(c.Servers, server)
	return s, toolName, err
}

func findIn(l Listing, s Server, toolName string) (ToolDef, error) {
	for _, t := range l.Tools {
		if t.Name == toolName {
			return t, nil
		}
	}
	// The qualified name: the tool's name made fit for every API, one
	// name per tool (qualify).
	qualified := tool.NormalizeName(s.Name + Separator + toolName)
	for _, t := range l.Tools {
		if tool.NormalizeName(t.Qualified()) == qualified {
			return t, nil
		}
	}
	for _, t := range l.Skipped {
		if t.Name == toolName || tool.NormalizeName(QualifiedName(s.Name, t.Name)) == qualified {
			return ToolDef{}, &tool.Error{Code: tool.CodeToolError,
				Message: fmt.Sprintf("MCP server %s lists a tool %q that cannot be called: %s", s.Name, t.Name, t.Reason),
				Hint:    fmt.Sprintf("the server must fix the tool's definition; `mcode connector tools --server %s` lists the tools it offers", s.Name)}
		}
	}
	var near []string
	for _, h := range Rank(l.Tools, toolName) {
		if len(near) == 3 {
			break
		}
		near = append(near, h.Tool.Qualified())
	}
	hint := fmt.Sprintf("`mcode connector tools --server %s` lists its tools", s.Name)
	if len(near) > 0 {
		hint = "did you mean: " + strings.Join(near, ", ") + "? " + hint
	}
	return ToolDef{}, &tool.Error{Code: tool.CodeNotFound,
		Message: fmt.Sprintf("MCP server %s has no tool %q (%d tools listed)", s.Name, toolName, len(l.Tools)), Hint: hint}
}
