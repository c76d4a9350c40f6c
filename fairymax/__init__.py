"""fairymax: an XBoard chess-variant engine in the style of Fairy-Max, with a Cython core."""
__version__ = "0.1.0"
