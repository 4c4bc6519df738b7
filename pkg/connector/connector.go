package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

	parked *parking // sessions opened by a lookup, for the call that follows
}

// Server states in a ServerStatus.
const (
	StatusReached = "reached" // contacted now
	StatusCached  = "cached"  // its listing came from the cache
	StatusError   = "error"
)

// ServerStatus is what one server said, or why it said nothing.
type ServerStatus struct {
	Name            string      `json:"name"`
	Transport       string      `json:"transport"`
	Status          string      `json:"status"`
	ProtocolVersion string      `json:"protocol_version"`
	ToolCount       int         `json:"tool_count"`
	Error           *tool.Error `json:"error"`
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
	return statuses
}

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
		statuses[i] = ServerStatus{Name: s.Name, Transport: s.Transport()}
		if !live {
			if l, ok := load(c.DataDir, s, c.now()); ok {
				statuses[i].Status, statuses[i].ProtocolVersion, statuses[i].ToolCount = StatusCached, l.ProtocolVersion, len(l.Tools)
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
	for t, err := range sess.cs.Tools(ctx, nil) {
		if err != nil {
			return Listing{}, sess.protocolError("tools/list", err)
		}
		def, err := toolDef(s.Name, t)
		if err != nil {
			return Listing{}, sess.protocolError("tools/list", err)
		}
		l.Tools = append(l.Tools, def)
	}
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

func toolDef(server string, t *mcp.Tool) (ToolDef, error) {
	d := ToolDef{Server: server, Name: t.Name, Title: t.Title, Description: t.Description}
	var err error
	if d.InputSchema, err = json.Marshal(t.InputSchema); err != nil {
		return ToolDef{}, fmt.Errorf("tool %s: inputSchema: %w", t.Name, err)
	}
	if t.OutputSchema != nil {
		if d.OutputSchema, err = json.Marshal(t.OutputSchema); err != nil {
			return ToolDef{}, fmt.Errorf("tool %s: outputSchema: %w", t.Name, err)
		}
	}
	if t.Annotations != nil {
		d.Annotations, _ = json.Marshal(t.Annotations)
	}
	d.Params = paramNames(d.InputSchema)
	if raw, ok := t.Meta[tool.AliasesMetaKey]; ok {
		// A malformed entry is ignored: the schema still judges the call.
		data, _ := json.Marshal(raw)
		var aliases map[string]tool.Alias
		if json.Unmarshal(data, &aliases) == nil {
			for name, a := range aliases {
				if a.Param == "" {
					delete(aliases, name)
				}
			}
			if len(aliases) > 0 {
				d.Aliases = aliases
			}
		}
	}
	return d, nil
}

// Find looks a tool up by its qualified name: from the cache, else by
// asking its server.
func (c *Connector) Find(ctx context.Context, name string) (ToolDef, error) {
	s, toolName, err := c.resolve(name)
	if err != nil {
		return ToolDef{}, err
	}
	l, ok := Listing{}, false
	if !c.Refresh {
		l, ok = loadListing(c.DataDir, s, c.now())
	}
	if !ok {
		var sess *session
		if l, sess, err = c.listKeeping(ctx, s); err != nil {
			return ToolDef{}, err
		}
		c.park(sess) // the call that looked it up comes next
	}
	return findIn(l, s, toolName)
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
	// The qualified name may be the tool's name made fit for every API.
	for _, t := range l.Tools {
		if t.Qualified() == QualifiedName(s.Name, toolName) {
			return t, nil
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
