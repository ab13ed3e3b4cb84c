# An existing handbook as its editors keep it (issue 11): chapters, a yearly
# FAQ page of line-block rulings, overturned rulings struck through whole, and
# a legacy link file (links.rst, inside the source folder, as such handbooks
# keep it).  Every shape here is fine: the handbook builds with -W, and the
# only reports are notes.  tests/test_legacy_*.py
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections']
handbook_cards = 'links.rst'
