package patterns

import (
	"strings"
	"testing"
)

// A sorted collection read reads its owner at either end: a hand layout
// whose owner sorts above the sorted member (SITE# above POST#) is
// correct read descending, its owner first (issue 35: KP103 refused it and
// KP107 warned of the opposite); KP107 warns only when the owner is read
// last. The planner prefers the layout that reads the owner first when the
// read has a limit, either way.
func TestOwnerAtEitherEnd(t *testing.T) {
	hand := func(order, postSK string) string {
		return `table: Blog
entities:
  Site:
    id: [siteId]
    attributes: {siteId: {type: string, maxLength: 20}, name: string}
    keys: {table: {pk: "SITE#{siteId}", sk: "SITE#{siteId}"}}
  Post:
    id: [siteId, ulid]
    attributes: {siteId: {type: string, maxLength: 20}, ulid: {type: string, maxLength: 26}, title: string}
    keys: {table: {pk: "SITE#{siteId}", sk: "` + postSK + `"}}
patterns:
  GetSite: {get: Site}
  SiteWithPosts: {query: [Site, Post], where: [siteId], sort: ulid` + order + `, limit: 11}
`
	}
	ids := func(d *Design) string {
		var out []string
		for _, x := range d.Diagnostics {
			out = append(out, x.ID)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		name, src, want string
	}{
		{"owner above, descending", hand(" desc", "POST#{ulid}"), ""},
		{"owner above, ascending", hand("", "POST#{ulid}"), "KP107"},
		{"owner below, descending", hand(" desc", "SITE#{siteId}#POST#{ulid}"), "KP107"},
		{"owner below, ascending", hand("", "SITE#{siteId}#POST#{ulid}"), ""},
		{"owner among the posts", hand(" desc", "SITE#{ulid}"), "KP103 KP103"}, // GetSite too: SITE#{ulid} may equal a site's key
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ids(planText(t, c.src)); got != c.want {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
	designed := func(order string) string {
		return `table: Blog
entities:
  Site:
    id: [siteId]
    attributes: {siteId: {type: string, maxLength: 20}, name: string}
  Post:
    id: [siteId, ulid]
    within: Site
    attributes: {siteId: {type: string, maxLength: 20}, ulid: {type: string, maxLength: 26}, title: string}
patterns:
  GetSite: {get: Site}
  SiteWithPosts: {query: [Site, Post], where: [siteId], sort: ulid` + order + `, limit: 11}
`
	}
	for _, order := range []string{" desc", ""} {
		d := planText(t, designed(order))
		pp := d.Pattern("SiteWithPosts")
		if pp.ownerReadLast(d.Model().Pattern("SiteWithPosts")) || ids(d) != "" {
			t.Errorf("designed%s: the owner is read last (%s; Post's key %s): %s", order, pp.Text, d.Entity("Post").Key(BaseIndex).SK, ids(d))
		}
	}
}
