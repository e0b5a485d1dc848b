package patterns

import (
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
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
    attributes: {siteId: {type: string, maxLength: 20}, ulid: {type: string, maxLength: 26, cardinality: 100000}, title: string}
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
    attributes: {siteId: {type: string, maxLength: 20}, ulid: {type: string, maxLength: 26, cardinality: 100000}, title: string}
patterns:
  GetSite: {get: Site}
  SiteWithPosts: {query: [Site, Post], where: [siteId], sort: ulid` + order + `, limit: 11}
`
	}
	for _, order := range []string{" desc", ""} {
		d := planText(t, designed(order))
		pp := d.Pattern("SiteWithPosts")
		if pp.ownerReadLast(d.Model().Pattern("SiteWithPosts")) || ids(d) != "" {
			t.Errorf("designed%s: the owner is read last (%s; Post's key %s): %s", order, pp.Text, d.Entity("Post").Key(model.BaseIndex).SK, ids(d))
		}
	}
}

// A collection a GSI serves (its order is no id attribute, so no base key
// holds it) is keyed owner-first too: read descending with a limit, the
// sorted member's GSI sort key sorts below its owner's, flat when the
// tags already sort so (COMMENT# below POST) and under the separator when
// they sort the other way (#BOOK# below AUTHOR). Ascending, or without a
// limit, the shape stays nested under the owner's tag (the layouts
// before). Read both ways with limits on one key, one of them loses its
// owner, and KP107 says so (issue 35, item 3: every such GSI collection
// drew KP107).
func TestOwnerFirstOnAGSI(t *testing.T) {
	model := func(owner, member, reads string) string {
		o, m := strings.ToLower(owner), strings.ToLower(member)
		return `table: Blog
entities:
  ` + owner + `:
    id: [` + o + `Id]
    attributes: {` + o + `Id: {type: string, maxLength: 40}, title: {type: string, maxLength: 200}}
  ` + member + `:
    id: [` + o + `Id, ` + m + `Id]
    within: ` + owner + `
    attributes: {` + o + `Id: {type: string, maxLength: 40}, ` + m + `Id: {type: string, maxLength: 40}, at: {type: time, immutable: true}}
patterns:
  Get: {get: ` + owner + `}
` + strings.ReplaceAll(reads, "$", "{query: ["+owner+", "+member+"], where: ["+o+"Id], sort: at")
	}
	for _, c := range []struct {
		name, owner, member, reads string
		sk                         string // the member's key on GSI1
		lost                       []string
	}{
		{"desc, tags sort the member below", "Post", "Comment", "  Newest: $ desc, limit: 20}\n", "COMMENT#{at}#{commentId}", nil},
		{"desc, tags sort the member above", "Author", "Book", "  Newest: $ desc, limit: 20}\n", "#BOOK#{at}#{bookId}", nil},
		{"asc", "Post", "Comment", "  Oldest: $, limit: 20}\n", "POST#COMMENT#{at}#{commentId}", nil},
		{"desc without a limit", "Post", "Comment", "  Newest: $ desc}\n", "POST#COMMENT#{at}#{commentId}", nil},
		{"desc with a limit, asc without", "Post", "Comment", "  Newest: $ desc, limit: 20}\n  Oldest: $}\n", "COMMENT#{at}#{commentId}", nil},
		{"both ways with limits", "Author", "Book", "  Newest: $ desc, limit: 20}\n  Oldest: $, limit: 20}\n", "AUTHOR#BOOK#{at}#{bookId}", []string{"Newest"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := planText(t, model(c.owner, c.member, c.reads))
			if len(d.Indexes) != 1 {
				t.Fatalf("%d GSIs, want 1", len(d.Indexes))
			}
			if k := d.Entity(c.member).Key("GSI1"); k == nil || k.SK.String() != c.sk {
				t.Errorf("%s's GSI1 key %v, want sort key %s", c.member, k, c.sk)
			}
			var lost []string
			for _, x := range d.Diagnostics {
				if x.ID == "KP107" {
					lost = append(lost, x.Subject.Name)
				} else {
					t.Errorf("finding %s", x)
				}
			}
			if !slices.Equal(lost, c.lost) {
				t.Errorf("KP107 on %v, want %v", lost, c.lost)
			}
			for _, p := range d.Model().Patterns {
				if pp := d.Pattern(p.Name); len(p.Entities) == 2 && pp.OwnerFirst(p) == slices.Contains(c.lost, p.Name) && p.Limit > 0 {
					t.Errorf("%s: OwnerFirst %v, lost %v", p.Name, pp.OwnerFirst(p), c.lost)
				}
			}
		})
	}
}
