"""Showing a results document: the terminal table and the HTML page, both from one view of it."""
