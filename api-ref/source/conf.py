"""Sphinx configuration of berth's API reference (os-api-ref)."""

project = 'berth API reference'
copyright = 'berth contributors'
extensions = ['os_api_ref', 'openstackdocstheme']
openstackdocs_repo_name = 'berth'
openstackdocs_use_storyboard = False
html_theme = 'openstackdocs'
master_doc = 'index'
exclude_patterns = []
