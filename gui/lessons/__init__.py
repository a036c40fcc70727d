"""The Lessons drawer: the course's lessons, the learner's progress, a lesson's goal checked live against
the shared scenario, and the widgets that show them.
"""
