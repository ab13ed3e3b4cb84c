# Files of the site written only when their content changes
# (handbook.publishing.unchanged_files), on the handbook's theme: furo writes
# its own pygments.css; html_static_path has a plain file and a template.
extensions = ['handbook.publishing.unchanged_files']
project = 'Unchanged files'
html_theme = 'furo'
html_static_path = ['static']
html_css_files = ['custom.css']
html_copy_source = False  # as the handbook: no _sources/
