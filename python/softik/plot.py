"""Plots of softik's CSV outputs, written as PNG or SVG with matplotlib (Agg backend).

    python3 -m softik.plot path    RUN.csv     -o load_path.png            # `softik run`, forward scene
    python3 -m softik.plot inverse INVERSE.csv -o inverse_convergence.svg  # an inverse run, per step
    python3 -m softik.plot batch   BATCH.csv   -o batch_scatter.png --x loads.pressure[0].value --y uz_tip

path     the load-displacement path of a forward run: the load (a cavity pressure p_<cavity>, or the
         load factor) against each probe's displacement components and magnitude, and against each
         cavity's volume growth.
inverse  the convergence of an inverse run: each effector's error (<effector>_error, log scale) and
         each actuator's value (<actuator>_pressure or _force) per step; goal changes are marked.
batch    a design sweep: one column against another (an override against a result), one point per
         design that solved, coloured by a third column.

Only the CSV files are read (softik.table): the compiled extension is not needed. Each function
returns the matplotlib Figure it saved.
"""

import argparse
import re
import sys

import numpy as np

from .table import read_table

_PROBE = re.compile(r"^u([xyz])_(.+)$")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _need(table, column, what):
    if column not in table:
        raise ValueError(f"{what}: no column '{column}'; the table has: {', '.join(table)}")
    values = table[column]
    if values.dtype.kind != "f":
        raise ValueError(f"{what}: column '{column}' is not numeric")
    return values


def _load_column(table, load):
    if load is not None:
        return load
    pressures = [c for c in table if c.startswith("p_")]
    return pressures[0] if pressures else "load_factor"


def _save(plt, fig, output, title=None):
    """Writes the figure (with `title` above its panels, if given) to `output` and closes it; returns it."""
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(output, dpi=110)
    plt.close(fig)
    return fig


def _label_path_panel(ax, xlabel, ylabel, title):
    """The axes' labels, title, grid and legend of one panel of plot_path."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def plot_path(table, output, load=None, probes=None, title=None):
    """Load against displacement (every probe) and against volume growth (every cavity)."""
    plt = _pyplot()
    load = _load_column(table, load)
    y = _need(table, load, "path")
    names = []
    for column in table:
        m = _PROBE.match(column)
        if m and m.group(2) not in names and (not probes or m.group(2) in probes):
            names.append(m.group(2))
    if probes:
        missing = [p for p in probes if p not in names]
        if missing:
            raise ValueError(f"path: no probe columns (ux_/uy_/uz_) for {', '.join(missing)}")
    growth = [c for c in table if c.startswith("volume_growth_")]
    if not names and not growth:
        raise ValueError("path: the table has no probe (ux_<probe>) or volume growth column to plot")
    panels = (1 if names else 0) + (1 if growth else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 4.2), squeeze=False)
    axes = list(axes[0])
    ylabel = f"{load} (Pa)" if load.startswith("p_") else load
    if names:
        ax = axes.pop(0)
        for name in names:
            u = np.stack([table.get(f"u{a}_{name}", np.zeros_like(y)) for a in "xyz"])
            norm = np.linalg.norm(u, axis=0)
            scale = max(float(np.max(norm)), 1e-300)
            for a, comp in zip("xyz", u):
                if np.max(np.abs(comp)) > 1e-3 * scale:
                    ax.plot(comp * 1e3, y, marker="o", ms=3, label=f"u{a} {name}")
            ax.plot(norm * 1e3, y, marker="s", ms=3, lw=2, color="black", label=f"|u| {name}")
        _label_path_panel(ax, "displacement (mm)", ylabel, "load-displacement path")
    if growth:
        ax = axes.pop(0)
        for column in growth:
            ax.plot(table[column] * 1e9, y, marker="o", ms=3, label=column[len("volume_growth_"):])
        _label_path_panel(ax, "cavity volume growth (mm^3)", ylabel, "load-volume path")
    return _save(plt, fig, output, title)


def _actuator_columns(table, effectors):
    cols = []
    for column in table:
        m = re.match(r"^(.+)_(pressure|force(_[xyz])?)$", column)
        if m and m.group(1) not in effectors:
            cols.append(column)
    return cols


def plot_inverse(table, output, title=None):
    """Effector errors (log scale) and actuator values per step of an inverse run."""
    plt = _pyplot()
    step = _need(table, "step", "inverse")
    errors = [c for c in table if c.endswith("_error") and c != "kkt_residual"]
    if not errors:
        raise ValueError("inverse: no effector error column (<effector>_error): is this an inverse run's CSV?")
    effectors = [c[: -len("_error")] for c in errors]
    actuators = _actuator_columns(table, effectors)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 6), sharex=True)
    for column, name in zip(errors, effectors):
        e = np.abs(table[column])
        top.semilogy(step, np.maximum(e, 1e-16), marker="o", ms=3, label=name)
    top.set_ylabel("effector error")
    top.set_title("inverse convergence")
    top.grid(True, which="both", alpha=0.3)
    top.legend(fontsize=8)
    for column in actuators:
        values = table[column]
        unit = " (kPa)" if column.endswith("_pressure") else " (N)"
        scale = 1e-3 if column.endswith("_pressure") else 1.0
        bottom.plot(step, values * scale, marker="o", ms=3, label=column + unit)
    bottom.set_xlabel("step")
    bottom.set_ylabel("actuator value")
    bottom.grid(True, alpha=0.3)
    if actuators:
        bottom.legend(fontsize=8)
    if "goal" in table and table["goal"].dtype.kind == "f":
        goal = table["goal"]
        for k in np.nonzero(np.diff(goal) != 0)[0]:
            for ax in (top, bottom):
                ax.axvline(step[k] + 0.5, color="gray", ls="--", lw=0.8)
    return _save(plt, fig, output, title)


def _default_batch_axes(table):
    names = list(table)
    start = names.index("error") + 1 if "error" in names else 0
    end = names.index("seconds") if "seconds" in names else len(names)
    overrides = [c for c in names[start:end] if table[c].dtype.kind == "f" and len(np.unique(table[c])) > 1]
    results = [c for c in names if _PROBE.match(c) and table[c].dtype.kind == "f"]
    x = overrides[-1] if overrides else None
    color = overrides[-2] if len(overrides) > 1 else None
    y = max(results, key=lambda c: np.nanmax(np.abs(table[c]))) if results else None
    return x, y, color


def plot_batch(table, output, x=None, y=None, color=None, title=None):
    """One column against another over the designs that solved (status ok), coloured by a third."""
    plt = _pyplot()
    dx, dy, dc = _default_batch_axes(table)
    x, y = x or dx, y or dy
    color = color if color is not None else dc
    if x is None or y is None:
        raise ValueError("batch: give --x and --y (no varying override or probe column to choose from)")
    xs, ys = _need(table, x, "batch"), _need(table, y, "batch")
    ok = np.ones(len(xs), dtype=bool)
    if "status" in table:
        ok = table["status"] == "ok"
    if not ok.any():
        raise ValueError("batch: no design solved (status ok); nothing to plot")
    fig, ax = plt.subplots(figsize=(6, 4.5))
    if color:
        cs = _need(table, color, "batch")
        for value in np.unique(cs[ok]):
            sel = ok & (cs == value)
            ax.scatter(xs[sel], ys[sel] * (1e3 if _PROBE.match(y) else 1), s=40, label=f"{color} = {value:g}")
        ax.legend(fontsize=8)
    else:
        ax.scatter(xs[ok], ys[ok] * (1e3 if _PROBE.match(y) else 1), s=40)
    if "design" in table:
        for name, px, py in zip(table["design"][ok], xs[ok], ys[ok] * (1e3 if _PROBE.match(y) else 1)):
            ax.annotate(str(name), (px, py), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y} (mm)" if _PROBE.match(y) else y)
    ax.set_title(title or f"design sweep: {int(ok.sum())} designs")
    ax.grid(True, alpha=0.3)
    return _save(plt, fig, output)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m softik.plot", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="kind", required=True)
    p = sub.add_parser("path", help="load-displacement path of a forward run (`softik run` CSV)")
    p.add_argument("csv")
    p.add_argument("-o", "--output", required=True, help="the .png or .svg to write")
    p.add_argument("--load", help="the load column (default: the first p_<cavity>, else load_factor)")
    p.add_argument("--probe", action="append", help="a probe to plot (repeatable; default: all)")
    p.add_argument("--title")
    q = sub.add_parser("inverse", help="effector error and actuator values per step of an inverse run")
    q.add_argument("csv")
    q.add_argument("-o", "--output", required=True)
    q.add_argument("--title")
    b = sub.add_parser("batch", help="scatter plot of a design sweep (`softik batch` CSV)")
    b.add_argument("csv")
    b.add_argument("-o", "--output", required=True)
    b.add_argument("--x", help="column on the x axis (default: the last varying override)")
    b.add_argument("--y", help="column on the y axis (default: the probe displacement that varies most)")
    b.add_argument("--color", help="column that colours the points (default: another varying override)")
    b.add_argument("--title")
    args = parser.parse_args(argv)
    if not args.output.lower().endswith((".png", ".svg")):
        parser.error(f"the output must be a .png or .svg file, got '{args.output}'")
    try:
        table = read_table(args.csv)
        if args.kind == "path":
            plot_path(table, args.output, load=args.load, probes=args.probe, title=args.title)
        elif args.kind == "inverse":
            plot_inverse(table, args.output, title=args.title)
        else:
            plot_batch(table, args.output, x=args.x, y=args.y, color=args.color, title=args.title)
    except (OSError, ValueError) as e:
        print(f"softik.plot: error: {e}", file=sys.stderr)
        return 1
    print(f"softik.plot: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
