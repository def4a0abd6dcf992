/* SPDX-License-Identifier: Apache-2.0 */
/*
 * text.c - denial messages assembled in one allocation.
 *
 * PyUnicode_FromFormat parses its format and grows a writer piece by
 * piece; a denial message is a handful of known pieces, so their lengths
 * are summed first and each piece is copied once into the final string.
 */
#include "parts.h"

#include <string.h>

void
fa_text_init(struct fa_text *t)
{
    t->n = 0;
    t->failed = 0;
}

static struct fa_piece *
next_piece(struct fa_text *t)
{
    if (t->failed) {
        return NULL;
    }
    if (t->n == FA_TEXT_MAX) {
        PyErr_SetString(PyExc_OverflowError,
                        "fastaudit: message has too many parts");
        t->failed = 1;
        return NULL;
    }
    return &t->p[t->n++];
}

/*
 * A C string: ASCII is copied as is, anything else decoded as UTF-8 the
 * way PyUnicode_FromFormat("%s") does, so messages stay the same.
 */
void
fa_text_c(struct fa_text *t, const char *s)
{
    size_t i, len = strlen(s);

    for (i = 0; i < len; i++) {
        if ((unsigned char)s[i] >= 0x80) {
            break;
        }
    }
    if (i < len) {
        fa_text_steal(t, PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace"));
        return;
    }
    fa_text_ascii(t, s, (Py_ssize_t)len);
}

void
fa_text_ascii(struct fa_text *t, const char *s, Py_ssize_t len)
{
    struct fa_piece *p = next_piece(t);

    if (p) {
        p->s = s;
        p->len = len;
        p->u = NULL;
        p->owned = 0;
    }
}

/* A str object, borrowed: it must outlive fa_text_done(). */
void
fa_text_u(struct fa_text *t, PyObject *u)
{
    struct fa_piece *p = next_piece(t);

    if (p) {
        p->u = u;
        p->s = NULL;
        p->len = PyUnicode_GET_LENGTH(u);
        p->owned = 0;
    }
}

/*
 * A new reference (or NULL with an exception set), released by fa_text_done().
 */
void
fa_text_steal(struct fa_text *t, PyObject *u)
{
    struct fa_piece *p;

    if (!u) {
        t->failed = 1;
        return;
    }
    p = next_piece(t);
    if (!p) {
        Py_DECREF(u);
        return;
    }
    p->u = u;
    p->s = NULL;
    p->len = PyUnicode_GET_LENGTH(u);
    p->owned = 1;
}

void
fa_text_repr(struct fa_text *t, PyObject *o)
{
    fa_text_steal(t, t->failed ? NULL : PyObject_Repr(o));
}

/*
 * repr() of an exact tuple, item by item: tuple_repr's recursion guard
 * (Py_ReprEnter) costs a per-thread dict and list, and a tuple can only
 * contain itself through a container whose own repr guards against it.
 */
void
fa_text_tuple_repr(struct fa_text *t, PyObject *tup)
{
    Py_ssize_t i, n;

    if (!PyTuple_CheckExact(tup) || (n = PyTuple_GET_SIZE(tup)) > 16
        || t->n + 2 * n + 2 > FA_TEXT_MAX)
    {
        fa_text_repr(t, tup);
        return;
    }
    fa_text_lit(t, "(");
    for (i = 0; i < n; i++) {
        if (i) {
            fa_text_lit(t, ", ");
        }
        fa_text_repr(t, PyTuple_GET_ITEM(tup, i));
    }
    if (n == 1) {
        fa_text_lit(t, ",)");
    } else {
        fa_text_lit(t, ")");
    }
}

PyObject *
fa_text_done(struct fa_text *t)
{
    PyObject *r = NULL;
    Py_UCS4 maxc = 127;
    Py_ssize_t len = 0, pos = 0, j;
    int i, kind;
    void *data;

    if (t->failed) {
        goto out;
    }
    for (i = 0; i < t->n; i++) {
        if (t->p[i].u && PyUnicode_MAX_CHAR_VALUE(t->p[i].u) > maxc) {
            maxc = PyUnicode_MAX_CHAR_VALUE(t->p[i].u);
        }
        len += t->p[i].len;
    }
    r = PyUnicode_New(len, maxc);
    if (!r) {
        goto out;
    }
    kind = PyUnicode_KIND(r);
    data = PyUnicode_DATA(r);
    for (i = 0; i < t->n; i++) {
        struct fa_piece *p = &t->p[i];

        if (p->u) {
            if (PyUnicode_KIND(p->u) == kind) {
                memcpy((char *)data + pos * kind, PyUnicode_DATA(p->u),
                       (size_t)p->len * kind);
            } else if (PyUnicode_CopyCharacters(r, pos, p->u, 0, p->len) < 0) {
                Py_CLEAR(r);
            }
            if (!r) {
                goto out;
            }
        } else if (kind == PyUnicode_1BYTE_KIND) {
            memcpy((char *)data + pos, p->s, (size_t)p->len);
        } else {
            for (j = 0; j < p->len; j++) {
                PyUnicode_WRITE(kind, data, pos + j,
                                (Py_UCS4)(unsigned char)p->s[j]);
            }
        }
        pos += p->len;
    }
out:
    for (i = 0; i < t->n; i++) {
        if (t->p[i].owned) {
            Py_DECREF(t->p[i].u);
        }
    }
    t->n = 0;
    return r;
}
