"""The browser and the page as Playwright gives them.

Launch, remote browsers, dialogs, tabs, files and the in-page scripts.
"""
