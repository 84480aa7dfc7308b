"""Looks at a rendered picture the way a reader would: png_check.py SVG PNG
(the PNG rsvg-convert made of the SVG). Checks, on the pixels: the picture
has the SVG's size and is not blank (png_ink's measure); the critical path's
colour (render.h: GT_PATH_COLOUR, #882255) is drawn, in at least 30 pixels;
every lane label's place in the label column holds ink (dark pixels), and its
text has both sides of "PROCESS / THREAD"; the legend's labels hold ink too.
Standard library only."""
import re
import sys
import xml.etree.ElementTree as ET

from png_ink import pixels

NS = "{http://www.w3.org/2000/svg}"
PATH = (0x88, 0x22, 0x55)


def main():
    svg, png = sys.argv[1:3]
    root = ET.parse(svg).getroot()
    w, h, bpp, rows = pixels(png)
    fails = []
    sw, sh = float(root.get("width")), float(root.get("height"))
    if (w, h) != (round(sw), round(sh)):
        fails.append("PNG is %dx%d, the SVG %gx%g" % (w, h, sw, sh))

    def px(x, y):
        line = rows[y]
        return line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]

    def ink(x0, y0, x1, y1):
        n = 0
        for y in range(max(y0, 0), min(y1, h)):
            for x in range(max(x0, 0), min(x1, w)):
                if max(px(x, y)) < 110:
                    n += 1
        return n

    path = 0
    for y in range(h):
        for x in range(w):
            r, g, b = px(x, y)
            if abs(r - PATH[0]) + abs(g - PATH[1]) + abs(b - PATH[2]) < 20:
                path += 1
    if root.find(".//%sline[@class='cp-hop']" % NS) is not None and path < 30:
        fails.append("the critical path's colour is in %d pixels" % path)
    labels = [t for t in root.iter(NS + "text") if t.get("class") == "lane-label"]
    if not labels:
        fails.append("no lane labels")
    for t in labels:
        text = "".join(t.itertext())
        sides = text.split(" / ")
        if len(sides) != 2 or not all(s.strip() for s in sides):
            fails.append("lane label %r has an empty side" % text)
        x, y = int(float(t.get("x"))), int(float(t.get("y")))
        if ink(x, y - 10, x + 200, y + 3) < 8:
            fails.append("lane label %r at y %d has no ink in the picture" % (text, y))
    for t in root.iter(NS + "text"):
        if t.get("class") == "cp-share" and ink(int(float(t.get("x"))), int(float(t.get("y"))) - 10,
                                                  int(float(t.get("x"))) + 100, int(float(t.get("y"))) + 3) < 8:
            fails.append("legend %r has no ink" % "".join(t.itertext()))
    for f in fails[:10]:
        print("FAIL: %s: %s" % (png, f))
    print("%s: %dx%d, %d path pixels, %d labels" % (png, w, h, path, len(labels)))
    return 1 if fails else 0


sys.exit(main())
