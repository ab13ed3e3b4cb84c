"""The base of :mod:`handbook.publishing.unchanged_files`'s builder, until
issue 34 replaces that module by a sweep after the build: the speed
package's builder (:mod:`handbook.speed.writing`), which is Sphinx's own
where ``handbook.speed`` is not loaded."""

from handbook.speed.writing import SpeedHTMLBuilder as OrderedHTMLBuilder

__all__ = ['OrderedHTMLBuilder']


def setup(app):  # noqa: ANN001, ANN201 -- loaded by publishing/unchanged_files.py
    return {'version': '2', 'parallel_read_safe': True, 'parallel_write_safe': True}
