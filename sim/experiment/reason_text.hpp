#pragma once
// A pod record's reason: a static text (a Kubernetes reason such as "Preempted"), or a FitError
// shared by every pod it explains. A fill's failed pods, about 2,600 a run, share some 80 texts:
// one string each would cost 60 runs of a compare tens of MB.
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace gpusim::experiment {

class ReasonText {
 public:
  ReasonText() = default;
  ReasonText(const char* text) : view_(text) {}  // NOLINT: a static text reads as one
  explicit ReasonText(std::shared_ptr<const std::string> text) : owned_(std::move(text)), view_(*owned_) {}
  // The text stays where it is however the record is copied or moved: it lives on the heap, in
  // the string the records share.
  operator std::string_view() const { return view_; }  // NOLINT
  std::string_view view() const { return view_; }
  bool empty() const { return view_.empty(); }
  friend bool operator==(const ReasonText& a, std::string_view b) { return a.view_ == b; }
  friend std::ostream& operator<<(std::ostream& out, const ReasonText& text) { return out << text.view_; }

 private:
  std::shared_ptr<const std::string> owned_;
  std::string_view view_ = "";
};

}  // namespace gpusim::experiment
