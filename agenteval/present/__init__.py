"""Views of computed results: notebook HTML (html), the HTML report (report), widgets.

They read the results and compute nothing of their own. Heavy libraries (matplotlib, ipywidgets)
are imported inside the functions that draw.
"""
