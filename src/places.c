/* SPDX-License-Identifier: Apache-2.0 */
/*
 * places.c - which directory a write needs, which directories are too
 * much to grant, and the fewest roots that hold what a run needed.
 *
 * One rule for every front door: a denial's fix (denial.c), fa-run --learn
 * and the Python host's learning context all ask here, so that the root a
 * message suggests and the root a learned policy grants never disagree.
 * Lookups go through sys.c: the shim calls the fix from inside a wrapper.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine_internal.h"

/* path begins with the directory dir (dir itself or beneath it) */
static int beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n] || (n == 1 && dir[0] == '/'));
}

/* The first component of path named name, or NULL. */
static const char *component(const char *path, const char *name)
{
	size_t n = strlen(name);
	const char *s;

	for (s = path; (s = strchr(s, '/')); s++)
		if (!strncmp(s + 1, name, n) && (s[1 + n] == '/' || !s[1 + n]))
			return s;
	return NULL;
}

static size_t home_len(const char *home)
{
	size_t h;

	if (!home || home[0] != '/' || !home[1])
		return 0;
	h = strlen(home);
	while (h > 1 && home[h - 1] == '/')
		h--;
	return h;
}

/*
 * Granting a place that holds credentials, configuration or installed
 * software lets every later step change them: such a place is named, not
 * granted. The project's own .git is its history, written by every commit.
 */
const char *fa_place_sensitive(const char *dir, const char *project)
{
	const char *home = getenv("HOME"), *git;
	size_t h = home_len(home);

	if (!strcmp(dir, "/"))
		return "it is the whole file system";
	if (component(dir, ".ssh") || component(dir, ".gnupg"))
		return "it holds keys";
	git = component(dir, ".git");
	if (git && (!project || !beneath(dir, project) ||
		    (size_t)(git - dir) < strlen(project)))
		return "it is inside a git repository's own .git";
	if (beneath(dir, "/etc"))
		return "it is system configuration";
	if (beneath(dir, "/usr") || beneath(dir, "/bin") || beneath(dir, "/sbin") ||
	    beneath(dir, "/lib") || beneath(dir, "/lib64") || beneath(dir, "/boot"))
		return "it is installed software";
	if (h) {
		if (!strncmp(dir, home, h) && !dir[h])
			return "it is the whole home directory";
	}
	/* A root above the project grants what lies beside it too: other projects. */
	if (project && beneath(project, dir) && strcmp(project, dir))
		return "it holds the project and what lies beside it";
	if (h) {
		if (!strncmp(dir, home, h) && dir[h] == '/' && dir[h + 1] == '.')
			return "it is a dotfile directory of the home directory";
	}
	return NULL;
}

int fa_place_holder(const char *path, char *out, size_t len)
{
	size_t k = strlen(path);
	char *slash;

	if (path[0] != '/' || k >= len)
		return 0;
	memcpy(out, path, k + 1);
	while ((slash = strrchr(out, '/')) && slash > out) {
		*slash = '\0';
		if (fa__sys_type(AT_FDCWD, out, 1) == S_IFDIR)
			return 1;
	}
	return 0;
}

/* A parent that collapsing may grant: not /, not top-level, not sensitive, not above the project. */
static int may_collapse_into(const char *dir, const char *project)
{
	const char *home = getenv("HOME");
	size_t h = home_len(home);

	if (!strcmp(dir, "/") || !strchr(dir + 1, '/'))
		return 0;
	if (fa_place_sensitive(dir, project))
		return 0;
	if (h && beneath(home, dir))
		return 0;
	if (project && beneath(project, dir) && strcmp(project, dir))
		return 0;
	return 1;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct fa_suggested_root *)a)->path,
		      ((const struct fa_suggested_root *)b)->path);
}

/* Sort, then drop duplicates and entries beneath an earlier one; returns the new count. */
static int tidy(struct fa_suggested_root *r, int n)
{
	int i, k = 0;

	qsort(r, (size_t)n, sizeof(*r), by_path);
	for (i = 0; i < n; i++) {
		if (k && beneath(r[i].path, r[k - 1].path))
			continue;
		if (k != i)
			r[k] = r[i];
		k++;
	}
	return k;
}

static void parent_of(const char *dir, char *out)
{
	char *slash;

	strcpy(out, dir);
	slash = strrchr(out, '/');
	if (slash == out)
		out[1] = '\0';
	else if (slash)
		*slash = '\0';
}

int fa_suggest_roots(const char *const *dirs, int n, const char *project,
		     struct fa_suggested_root *out, int max)
{
	char pa[PATH_MAX], pb[PATH_MAX];
	int i, j, k = 0, changed;

	if (n < 0 || max < 0 || (n && (!dirs || !out)))
		return -EINVAL;
	for (i = 0; i < n && k < max; i++) {
		if (!dirs[i] || dirs[i][0] != '/' || strlen(dirs[i]) >= PATH_MAX)
			return -EINVAL;
		strcpy(out[k++].path, dirs[i]);
	}
	k = tidy(out, k);
	/* Siblings under one parent become the parent, while the parent may be granted. */
	do {
		changed = 0;
		for (i = 0; i < k; i++) {
			parent_of(out[i].path, pa);
			if (!may_collapse_into(pa, project))
				continue;
			for (j = i + 1; j < k; j++) {
				parent_of(out[j].path, pb);
				if (!strcmp(pa, pb))
					break;
			}
			if (j == k)
				continue;
			strcpy(out[i].path, pa);
			changed = 1;
		}
		k = tidy(out, k);
	} while (changed);
	for (i = 0; i < k; i++)
		out[i].sensitive = fa_place_sensitive(out[i].path, project);
	return k;
}
