"""Render: the HTML plumbing of the listings -- placeholders filled at write
time, links to a place of another page, parts written to HTML at once, and
each ruling's HTML rendered once for every page that shows it."""
