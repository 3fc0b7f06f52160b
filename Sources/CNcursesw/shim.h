#ifndef PARLEY_CNCURSESW_SHIM_H
#define PARLEY_CNCURSESW_SHIM_H
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <ncursesw/curses.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

/* Macros and globals Swift cannot see, as tiny inline functions. */
static inline attr_t parley_a_bold(void) { return A_BOLD; }
static inline attr_t parley_a_dim(void) { return A_DIM; }
static inline attr_t parley_a_reverse(void) { return A_REVERSE; }
static inline attr_t parley_a_underline(void) { return A_UNDERLINE; }
static inline attr_t parley_a_italic(void) { return A_ITALIC; }
static inline attr_t parley_a_normal(void) { return A_NORMAL; }
static inline int parley_lines(void) { return LINES; }
static inline int parley_cols(void) { return COLS; }
static inline WINDOW *parley_stdscr(void) { return stdscr; }
static inline int parley_colors(void) { return COLORS; }
static inline int parley_color_pairs(void) { return COLOR_PAIRS; }
static inline int parley_key_resize(void) { return KEY_RESIZE; }
static inline int parley_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int parley_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline int parley_attr_set(WINDOW *w, attr_t a, short pair) { return wattr_set(w, a, pair, NULL); }
static inline int parley_mvaddnwstr(WINDOW *w, int y, int x, const wchar_t *s, int n) { return mvwaddnwstr(w, y, x, s, n); }
static inline WINDOW *parley_curscr(void) { return curscr; }
/* Terminal size of a tty fd (ioctl is variadic, which Swift cannot call). Returns 0 on success. */
static inline int parley_winsize(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
    *rows = ws.ws_row; *cols = ws.ws_col;
    return 0;
}
/* The colour count terminfo gives `term` (-1: no colours, -2: unknown terminal), for `parley doctor`, without
   taking over the terminal. setupterm is in <term.h>, whose capability macros would clash with everything. */
extern int setupterm(const char *, int, int *);
static inline int parley_terminfo_colors(const char *term) {
    int err = 0;
    if (setupterm(term, 1, &err) != 0) return -2;
    int n = tigetnum("colors");
    return n < 0 ? -1 : n;
}
/* A terminfo boolean capability of the running terminal (1 set, 0 absent, -1 not a boolean), e.g. "RGB". */
static inline int parley_terminfo_flag(const char *name) { return tigetflag((char *)name); }
#endif
